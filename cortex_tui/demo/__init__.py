"""The demo data set: a fictional team's memories for trying every feature."""
