#!/bin/sh
# The A2A protocol by hand: curl against tiny-harness's JSON-RPC binding, one call a step.
#
#   BASE=http://127.0.0.1:8080 sh examples/client/curl.sh
#
# Every request is a POST of one JSON-RPC 2.0 call to the agent's URL with the header
# `A2A-Version: 1.0`. The task asks a question ("pick a colour" on the scripted model of
# examples/client/script.yaml), so the walk shows a task pausing and being answered.
# `python3` only picks ids out of the answers; jq would do as well.
set -eu
BASE=${BASE:-http://127.0.0.1:8080}

rpc() {
  curl -sS --fail-with-body "$BASE/" -H 'content-type: application/json' -H 'A2A-Version: 1.0' -d "$1"
  echo
}

field() {
  python3 -c "import json, sys; print(json.load(sys.stdin)$1)"
}

echo "== 1. The agent card: who the agent is, what it offers, which bindings it speaks"
curl -sS --fail-with-body "$BASE/.well-known/agent-card.json" | field '["name"]'

echo "== 2. SendMessage: start a task; the answer comes when the task pauses or ends"
started=$(rpc '{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
  "message": {"messageId": "walk-1", "role": "ROLE_USER", "parts": [{"text": "pick a colour"}]}}}')
task=$(echo "$started" | field '["result"]["task"]["id"]')
echo "task $task is $(echo "$started" | field '["result"]["task"]["status"]["state"]')"
echo "it asks: $(echo "$started" | field '["result"]["task"]["status"]["message"]["parts"][0]["text"]')"

echo "== 3. GetTask: the task as it stands, its last 2 messages"
rpc "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"GetTask\", \"params\": {\"id\": \"$task\", \"historyLength\": 2}}" \
  | field '["result"]["status"]["state"]'

echo "== 4. SendStreamingMessage: answer it (the same taskId) and follow the stream to its end"
curl -sS -N --fail-with-body "$BASE/" -H 'content-type: application/json' -H 'A2A-Version: 1.0' -d "{
  \"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"SendStreamingMessage\", \"params\": {
  \"message\": {\"messageId\": \"walk-2\", \"taskId\": \"$task\", \"role\": \"ROLE_USER\", \"parts\": [{\"text\": \"blue\"}]}}}" \
  | grep '^data:' | sed 's/^data: //' | python3 -c '
import json, sys
for line in sys.stdin:
    result = json.loads(line)["result"]
    kind = next(iter(result))
    if kind == "artifactUpdate":
        print("answer:", result[kind]["artifact"]["parts"][0]["text"])
    else:
        print(kind, (result[kind].get("status") or {}).get("state", ""))
'

echo "== 5. ListTasks: the tasks you may see, newest first"
rpc '{"jsonrpc": "2.0", "id": 4, "method": "ListTasks", "params": {"pageSize": 5}}' \
  | field '["result"]["tasks"][0]["status"]["state"]'
