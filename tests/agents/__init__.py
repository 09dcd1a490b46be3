"""The real agents, run end to end against a stand-in for the model API."""
