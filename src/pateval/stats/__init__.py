"""Comparing systems and measures: significance tests, corrections, effect sizes,
discriminative power, rank correlation and agreement between measures.

Everything here works on score matrices (topics x runs, one measure), whatever computed
the scores; :func:`score_matrix` pivots the long frame :func:`pateval.api.evaluate`
returns.
"""

from .agreement import VERDICTS, agreement_chart, agreement_counts, pair_verdicts
from .comparison import Comparison, MeasureAnalysis, analyse_measures, compare_runs, mean_scores
from .corrections import CORRECTIONS, adjust_p_values, benjamini_hochberg, bonferroni, holm
from .correlation import kendall_tau, ranking_correlations, tau_ap
from .discriminative_power import DiscriminativePower, asl_curves, discriminative_power, summarise_discriminative_power
from .effect_size import bootstrap_confidence_interval, paired_effect_size, residual_effect_sizes, t_confidence_interval
from .scores import as_generator, score_matrices, score_matrix
from .significance import (
    DEFAULT_B,
    TESTS,
    PairedTestResult,
    bootstrap_asl,
    paired_t,
    paired_test,
    pairwise_tests,
    randomisation_asl,
    tukey_hsd_asl,
    wilcoxon_signed_rank,
)

__all__ = [
    "VERDICTS",
    "agreement_chart",
    "agreement_counts",
    "pair_verdicts",
    "Comparison",
    "MeasureAnalysis",
    "analyse_measures",
    "compare_runs",
    "mean_scores",
    "CORRECTIONS",
    "adjust_p_values",
    "benjamini_hochberg",
    "bonferroni",
    "holm",
    "kendall_tau",
    "ranking_correlations",
    "tau_ap",
    "DiscriminativePower",
    "asl_curves",
    "discriminative_power",
    "summarise_discriminative_power",
    "bootstrap_confidence_interval",
    "paired_effect_size",
    "residual_effect_sizes",
    "t_confidence_interval",
    "as_generator",
    "score_matrices",
    "score_matrix",
    "DEFAULT_B",
    "TESTS",
    "PairedTestResult",
    "bootstrap_asl",
    "paired_t",
    "paired_test",
    "pairwise_tests",
    "randomisation_asl",
    "tukey_hsd_asl",
    "wilcoxon_signed_rank",
]
