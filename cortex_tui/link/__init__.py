"""The standard-library-only way from any surface to the engine: the local service and its
socket, a team server, and the durable spool of turns waiting for either."""
