"""An agent's turn, from the event its hook sends to the memories captured from it.

`events.py` reads the event (the agent's adapter recognises it, `agents/`); `plan.py`
decides what it is given; `context.py` assembles that context, the one way every
surface does (the service, the in-process hook, a team server); `spooling.py` puts the
turn's new text in the durable spool; `drain.py` hands spooled entries to capture.
What is specific to one agent lives in its adapter, `agents/<agent>/`.
"""
