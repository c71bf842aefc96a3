"""Setting types shared by configuration and workflows: durations and retry policies."""
