"""A2A protocol values as our models read them: protobuf fields and typed data parts."""
