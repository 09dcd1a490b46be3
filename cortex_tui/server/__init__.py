"""The local service: one process owns the store and serves the `Engine` over a Unix socket."""
