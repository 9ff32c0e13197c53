"""pateval: evaluation of patent prior-art search and other professional search."""

__version__ = "0.1.0"
