"""What memory gave an agent, turn by turn: each context a hook injected (and each recall
an MCP client asked for), kept as it was given, with every memory's score breakdown as
computed then and what the budget left out. A person whose agent said something odd can
read what it was told on that turn, though the store, the access counts and the clock
have moved on since."""
