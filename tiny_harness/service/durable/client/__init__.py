"""The client side of the durable layer: reaching Temporal, the worker, and `TaskGateway`."""
