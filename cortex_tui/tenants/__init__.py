"""Tenants of a team server (`serve --tcp --tenants`): who holds which API key, and where
each one's memories live. The server and the CLI's `tenant` commands share this."""
