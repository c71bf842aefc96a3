"""Activity code: every side effect of a task or stand-in workflow, run on the worker."""
