"""Page kinds: each module here turns the verified records into generated Markdown pages.

The build asks every kind in PAGE_KINDS (see registry.py) for its pages, in order."""
