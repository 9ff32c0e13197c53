"""Names the command line offers before any statistics are loaded (this module imports nothing)."""

#: The paired tests, by the names the API and command line accept.
TESTS = ("t", "wilcoxon", "randomisation", "bootstrap", "tukey")
#: Other spellings of the tests' names that the command line accepts (US English).
TEST_SPELLINGS = {"randomization": "randomisation"}
#: Resamples each resampling test draws unless told otherwise (Sakai's B for the bootstrap
#: and for the randomised Tukey HSD; 10,000 sign vectors for the randomisation test).
DEFAULT_B = {"randomisation": 10_000, "bootstrap": 1_000, "tukey": 5_000}
#: Multiple-comparison corrections by name ("none" leaves p-values as they are).
CORRECTION_NAMES = ("holm", "bonferroni", "bh", "none")
