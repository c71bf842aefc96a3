"""The durable side of a task, split by where its code runs.

workflows/   deterministic workflow code: `TaskWorkflow`, `RemoteTaskWorkflow` and the
             helpers they hold state in; no I/O, clock or randomness
activities/  every side effect those workflows have, one typed input each
client/      the caller's side: the Temporal connection (or embedded dev server), the
             worker, and `TaskGateway`, the one way the A2A server reaches a task
payloads.py, remote_payloads.py
             the typed values that cross the Temporal boundary, shared by all three
"""
