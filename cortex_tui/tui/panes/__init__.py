"""The app's modes, one module each; `base` holds what they share."""
