"""Names the command line offers before matplotlib is loaded (this module imports nothing)."""

#: Output formats of tables (comparisons and measure analyses).
TABLE_FORMATS = ("text", "csv", "json", "latex")
#: How the HTML report embeds figures.
IMAGE_FORMATS = ("svg", "png")
#: File formats figures are saved in, chosen by suffix.
FIGURE_FORMATS = ("png", "svg")
