"""Push notifications to our own clients: the URL guard, the sender activity and the
per-receiver courier workflow that delivers a task's events in order."""
