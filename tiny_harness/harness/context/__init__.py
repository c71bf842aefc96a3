"""What the model sees: the context window of one turn, and compaction of a long conversation."""
