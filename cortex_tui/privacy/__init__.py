"""What never becomes a memory: credentials, and what a person marks `<private>`.

Every way into the store passes its text through one `Redactor` before anything is
embedded, indexed, tagged, linked or judged, so a secret's value exists nowhere the engine
writes; every way out passes memories through it again, a last guard for a store written
by an older version or another tool. `scrub` cleans a store that already holds secrets.
"""
