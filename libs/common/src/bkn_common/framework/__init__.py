"""The service framework every service is built on: the app factory and its HTTP plumbing,
projections with checkpoints, rebuilds, start-up and shutdown, background tasks, heap care."""
