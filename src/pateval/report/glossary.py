"""What each column of pateval's result tables means, in one line: for the report's glossary and
the commands' ``--help`` (this module imports nothing, so a help text can print it).

Tables are keyed by what the user meets: the report's recall-precision curves, the comparison's
tests (``compare``), the measure analysis (``analyse-measures``), the TBG calibration
(``calibrate``) and the user model (``user-model time``, ``user-model simulate``).
"""

from __future__ import annotations

import html
import textwrap

__all__ = ["GLOSSARY", "glossary_html", "glossary_text"]

#: table -> column -> its meaning in one line.
GLOSSARY: dict[str, dict[str, str]] = {
    "recall-precision": {
        "run": "the run whose recall-precision curve this row is",
        "0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0":
            "interpolated precision at that recall level, the highest precision at any rank where recall is at "
            "least the level (IPrec(recall=x), trec_eval's iprec_at_recall_x), mean over the run's topics",
    },
    "tests": {
        "measure": "the measure whose per-topic scores were tested",
        "run_a, run_b": "the two runs of the pair (run_b is the baseline when there is one)",
        "n_topics": "topics both runs have a score on (the pairs of the paired test)",
        "mean_a, mean_b": "each run's mean score over those topics",
        "difference": "mean_a - mean_b",
        "statistic": "the test's statistic: t (t-test, bootstrap), min(W+, W-) (Wilcoxon), the mean difference "
                     "(randomisation, Tukey HSD)",
        "p_value": "the test's p-value (the achieved significance level, ASL) before correction",
        "p_adjusted": "the p-value after the multiple-comparison correction; compared with alpha",
        "significant": "p_adjusted < alpha",
        "effect_size": "Cohen's d_z: the mean per-topic difference divided by its standard deviation (Sakai 2014)",
        "ci_low, ci_high": "the 95% t confidence interval of the mean difference",
        "critical_difference": "the smallest |difference| the test would call significant for this pair",
        "test, correction, alpha, B, seed": "the settings the p-values depend on (B, seed: resampling tests only)",
    },
    "discriminative power": {
        "measure, test": "the measure, and the test whose ASLs decide",
        "pairs": "run pairs tested",
        "significant": "run pairs whose ASL is below alpha",
        "discriminative_power": "significant / pairs: the share of run pairs the measure tells apart (Sakai 2006)",
        "difference_needed": "the largest per-pair critical difference: a conservative difference needed for "
                             "significance",
        "difference_needed_median": "the median per-pair critical difference: the difference a typical pair needs",
        "alpha, B, seed": "the significance level, and the resampling test's samples and seed",
    },
    "rank correlation": {
        "measure_a, measure_b": "the two measures whose rankings of the runs are compared",
        "kendall_tau": "Kendall's tau between the two rankings (1: same order, -1: reversed)",
        "tau_ap_a_b": "AP rank correlation (Yilmaz et al. 2008) of measure_a's ranking against measure_b's as the "
                      "reference; swaps near the top cost more",
        "tau_ap_b_a": "measure_b's ranking against measure_a's as the reference",
        "tau_ap": "the mean of tau_ap_a_b and tau_ap_b_a (symmetric)",
        "runs": "runs ranked",
    },
    "agreement": {
        "measure_a, measure_b": "the two measures whose verdicts on each run pair are compared",
        "pairs": "run pairs judged by both measures' tests",
        "agree": "pairs with the same verdict under both measures (both A, both B, or both tie)",
        "agree_share": "agree / pairs",
        "opposite": "pairs one measure finds significantly better for A and the other for B",
        "one_tied": "pairs one measure finds significant and the other not (tie)",
        "both_tied": "pairs neither measure finds significant",
    },
    "agreement chart": {
        "MEASURE": "the verdict on a run pair: A (first run significantly better), B (second run) or tie (neither)",
        "pairs": "run pairs with this combination of verdicts",
        "share": "pairs / all run pairs",
        "all_agree": "whether every measure gives the same verdict",
    },
    "calibration": {
        "group": "whose sessions were calibrated: all, a topic, or a class of users",
        "parameter": "a constant of time-biased gain (Smucker & Clarke 2012): T_S, T_D(l) = a l + b, P(C|R), "
                     "P(S|R), the half-life h",
        "value": "the estimate from all sessions of the group",
        "ci_low, ci_high": "its bootstrap percentile interval over users",
        "user_average": "each user's own estimate, averaged over users (unweighted)",
        "users": "users whose sessions gave the estimate",
    },
    "budgets": {
        "order": "the judging order replayed (pateval pool build --method)",
        "budget": "judgements per topic",
        "judgements": "documents judged over all topics (a topic with fewer documents uses fewer)",
        "relevant_found": "relevant documents among them",
        "found_per_judgement": "relevant_found / judgements",
        "tau": "Kendall's tau of the runs' ranking by the measure against the ranking under the complete qrels",
        "tau_ap": "the AP rank correlation (Yilmaz, Aslam & Robertson 2008) of the same rankings",
        "max_rank_change": "the largest change of one run's rank",
    },
    "reusability": {
        "left_out": "the run, or group of runs, left out of the pool",
        "run": "a left-out run",
        "unique_documents, unique_relevant": "the pooled documents only it (its group) contributed, and the "
                                             "relevant ones among them",
        "score, score_reduced, score_change": "its score on the complete qrels, on the qrels without those "
                                              "documents, and the difference",
        "rank, rank_reduced, rank_change": "its rank among the runs on either qrels, and the difference",
    },
    "rank over time": {
        "list": "a ranked list users searched (a topic of a run)",
        "time": "seconds since the start of a session",
        "sessions": "sessions still observed at that time",
        "observed": "the mean rank those sessions had reached",
        "predicted": "the rank the calibrated T(k) gives at that time",
        "error": "|observed - predicted|",
        "predicted_custom, error_custom": "the same with the list's own topic's calibration",
    },
    "user-model time": {
        "run, topic": "the run and the topic of the ranked list",
        "rank, docno": "the document's rank in the run, and the document",
        "relevant": "whether the qrels judge the document relevant",
        "length": "the document's length (words)",
        "duplicate": "whether a near-duplicate of the document is ranked above it (it earns no gain)",
        "time": "T(k): the seconds the user takes to reach this rank",
        "decay": "D(T(k)) = 2^(-T(k)/h): the chance the user is still searching then",
        "gain": "g_k D(T(k)) / N: this rank's share of the TBG value",
        "cumulative_gain": "TBG down to this rank (the running sum of gain)",
    },
    "user-model simulate": {
        "run, topic": "the run and the topic of the ranked list the users searched",
        "mean, std": "mean and standard deviation of the gain of n_users simulated users",
        "ci_low, ci_high": "the normal-approximation confidence interval of that mean",
        "expected": "the exact expectation of the simulated gain, sum_k g_k E[D(T_k)]: what mean converges to",
        "tbg": "the closed-form TBG, sum_k g_k D(E[T_k]): at most expected, since D is convex (Jensen)",
        "n_users": "users simulated on the topic",
    },
}


def glossary_text(*tables: str, width: int = 79) -> str:
    """The glossary of the named tables (default: all) as plain lines of at most ``width``
    characters, for a command's ``--help`` epilog (print it with a formatter that keeps its
    lines, such as :class:`argparse.RawDescriptionHelpFormatter`)."""
    lines = []
    for table in tables or tuple(GLOSSARY):
        lines.append(f"columns of {table}:")
        for column, meaning in GLOSSARY[table].items():
            lines.extend(textwrap.wrap(f"{column}: {meaning}", width, initial_indent="  ", subsequent_indent="      "))
    return "\n".join(lines)


def glossary_html(tables: dict[str, list[str]]) -> str:
    """The report's glossary: for each table shown (title -> its columns), each column's meaning.

    Columns are looked up by name (``run_a`` finds ``run_a, run_b``); a table's own
    measure columns (the agreement chart's) read as ``MEASURE``."""
    parts = []
    for title, columns in tables.items():
        rows = [f"<tr><td><code>{html.escape(key)}</code></td><td>{html.escape(meaning)}</td></tr>"
                for key, meaning in GLOSSARY[title].items()
                if key == "MEASURE" or any(name in columns for name in key.split(", "))]
        if rows:
            parts.append(f"<tr><th colspan=\"2\">{html.escape(title)}</th></tr>{''.join(rows)}")
    return f"<table class=\"glossary\"><tbody>{''.join(parts)}</tbody></table>"
