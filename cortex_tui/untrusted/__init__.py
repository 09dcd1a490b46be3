"""Input from outside the process, made safe once at the edge: files whose path an agent
or a user named, and text that may not be valid Unicode."""
