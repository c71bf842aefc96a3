"""Contract tests: the public interfaces, pinned by committed snapshots."""
