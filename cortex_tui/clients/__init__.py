"""Clients of a running engine, standard library only so the hooks can use them: the
local service found, started and asked (`local_service.py`), and a team server asked
(`team_server.py`)."""
