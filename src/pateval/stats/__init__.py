"""Comparing systems and measures: significance tests, corrections, effect sizes,
discriminative power, rank correlation and agreement between measures.

Everything here works on score matrices (topics x runs, one measure), whatever computed
the scores; :func:`score_matrix` pivots the long frame :func:`pateval.api.evaluate`
returns. Names are loaded on first use (scipy is not imported until a test runs), so the
command line starts quickly.
"""

from __future__ import annotations

from .._lazy import lazy_exports

# name -> submodule that defines it
_EXPORTS = {
    "VERDICTS": "agreement", "agreement_chart": "agreement", "agreement_counts": "agreement",
            "pair_verdicts": "agreement",
    "Comparison": "comparison", "MeasureAnalysis": "comparison", "analyse_measures": "comparison",
    "compare_runs": "comparison", "mean_scores": "comparison",
    "CORRECTIONS": "corrections", "adjust_p_values": "corrections", "benjamini_hochberg": "corrections",
    "bonferroni": "corrections", "holm": "corrections",
    "kendall_tau": "correlation", "ranking_correlations": "correlation", "tau_ap": "correlation",
    "DiscriminativePower": "power", "asl_curves": "power",
    "discriminative_power": "power", "summarise_discriminative_power": "power",
    "bootstrap_confidence_interval": "effect_size", "paired_effect_size": "effect_size",
    "residual_effect_sizes": "effect_size", "t_confidence_interval": "effect_size",
    "DEFAULT_B": "names", "TESTS": "names", "CORRECTION_NAMES": "names",
    "as_generator": "scores", "score_matrices": "scores", "score_matrix": "scores",
    "PairedTestResult": "significance", "bootstrap_asl": "significance", "paired_t": "significance",
    "paired_test": "significance", "pairwise_tests": "significance", "randomisation_asl": "significance",
    "tukey_hsd_asl": "significance", "wilcoxon_signed_rank": "significance",
}

__all__ = tuple(sorted(_EXPORTS))


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
