"""The public Python API of pateval. The command line (:mod:`pateval.cli`) is a thin layer
over these functions, and each of them is a thin layer over the package's modules."""

from __future__ import annotations

# ---- foundation: reading, evaluating --------------------------------------------------------

# ---- patents and test collections -----------------------------------------------------------

# ---- passage runs ---------------------------------------------------------------------------

# ---- comparing systems and measures -------------------------------------------------------

# ---- baselines ------------------------------------------------------------------------------

# ---- flowcharts -----------------------------------------------------------------------------
