"""The heartbeat (R16), split as the durable layer is: workflow, activities, schedule."""
