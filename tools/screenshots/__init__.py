"""The screenshots in docs/screenshots, made from the real windows (see ``__main__``)."""
