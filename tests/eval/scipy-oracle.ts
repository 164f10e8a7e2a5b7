/**
 * scipy 1.10.1's answers for the paired tests, from tests/oracle/paired_tests_oracle.py under Debian's
 * /usr/bin/python3 (the independent source of expected values for src/core/eval/signed-rank.ts and
 * sign-test.ts and for the p-values of `eval compare`).
 */
import { spawnSync } from "node:child_process";

const ORACLE = "tests/oracle/paired_tests_oracle.py";

/** scipy.stats.wilcoxon(d): its statistic and p-value, its refusal (all zeros), or null (NaN: no data). */
export type WilcoxonAnswer = { statistic: number; pvalue: number } | { error: string } | null;
export type OracleAnswer = {
  wilcoxon: WilcoxonAnswer[];
  binomtest: (number | null)[];
  erfc: number[];
  /** erfc by mpmath at 40 digits, rounded to a double. */
  erfc_exact: number[];
  norm_sf: number[];
};

/** scipy's answers for `request`, each list in input order (see the oracle's docstring). */
export function askScipy(request: {
  wilcoxon?: readonly (readonly number[])[];
  binomtest?: readonly (readonly [number, number])[];
  erfc?: readonly number[];
  erfc_exact?: readonly number[];
  norm_sf?: readonly number[];
}): OracleAnswer {
  const run = spawnSync("/usr/bin/python3", ["-s", ORACLE], {
    input: JSON.stringify(request),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`oracle failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as OracleAnswer;
}
