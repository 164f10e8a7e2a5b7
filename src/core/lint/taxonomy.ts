/**
 * The alert taxonomy (docs/lint.md, LintEval §2.5 and Appendix A.2): every rule of the shipped configurations
 * (lint/config/) in one of Error-prone, Performance, Refactor, Style, Other — one table per tool, in this
 * file, so the mapping can be reviewed in one place.
 *
 * LintEval names the five categories and groups rules "by concern" but publishes no per-rule table; its
 * figures (Style 67.3% of alerts, Other about 1%) show that nearly every rule lands in one of the first
 * four. The tables below follow each tool's own grouping and move single rules where the concern differs:
 *
 * - Error-prone: code that is probably wrong or breaks easily (undefined names, bad comparisons, resource
 *   leaks, narrowing conversions, uninitialized variables, files that do not parse).
 * - Performance: a cheaper way to do the same thing (string building in loops, copies, boxing).
 * - Refactor: structure — complexity, simplifiable logic, and dead or redundant code (unused imports,
 *   variables and parameters; `else` after `return`; modernizable constructs).
 * - Style: naming, documentation, idiom and notation that do not change structure.
 * - Other: messages about the environment or the analyzer rather than the code (a module not installed
 *   where the analyzer runs, an analyzer crash, a TODO note, deprecated platform APIs).
 *
 * Each tool's table has group defaults (Pylint: message category letter; clang-tidy: check prefix, the
 * longest listed prefix wins; PMD: the rule's category file) and per-rule overrides, each with its reason.
 * tests/lint/taxonomy.test.ts enumerates the enabled rules from the tools themselves and checks that each
 * is covered here, and that every override names a rule that is enabled.
 */
import type { AlertCategory, LintTool } from "./tools.js";

/** A category with the reason it applies. */
export type Classification = { category: AlertCategory; why: string };

type Table = Readonly<Record<string, Classification>>;

const c = (category: AlertCategory, why: string): Classification => ({ category, why });

// ---- Pylint -------------------------------------------------------------------------------------------

/** Pylint's message categories (the letter of the message id). */
const PYLINT_GROUPS: Table = {
  C: c("Style", "convention: naming, docstrings, idioms"),
  R: c("Refactor", "refactor: complexity and simplifiable code"),
  W: c("Error-prone", "warning: Python-specific problems that are likely bugs"),
  E: c("Error-prone", "error: probable bugs (undefined names, bad calls, syntax errors)"),
  F: c("Other", "fatal: Pylint itself could not analyze the file"),
  I: c("Other", "informational: about Pylint, not the code (all disabled in lint/config/pylintrc)"),
};

const PY_DEAD = "dead or redundant code";
const PY_SIMPLER = "a simpler construct does the same";
const PY_BUG = "likely a bug, not only a simplification";

/** Pylint messages whose concern differs from their letter's, by message id (symbol in the reason). */
const PYLINT_OVERRIDES: Table = {
  // convention → Refactor / Other
  C0302: c("Refactor", "too-many-lines: size, like the too-many-* refactor messages"),
  // refactor → Error-prone
  R0123: c("Error-prone", `literal-comparison: \`is\` with a literal; ${PY_BUG}`),
  R0124: c("Error-prone", `comparison-with-itself; ${PY_BUG}`),
  R0133: c("Error-prone", `comparison-of-constants; ${PY_BUG}`),
  R0206: c("Error-prone", "property-with-parameters: the parameters can never be passed"),
  R1704: c("Error-prone", "redefined-argument-from-local: shadows an argument"),
  R1707: c("Error-prone", "trailing-comma-tuple: a stray comma makes a tuple"),
  R1708: c("Error-prone", "stop-iteration-return: RuntimeError since PEP 479"),
  R1710: c("Error-prone", "inconsistent-return-statements: an implicit None return"),
  R1727: c("Error-prone", `condition-evals-to-constant; ${PY_BUG}`),
  R1732: c("Error-prone", "consider-using-with: a resource that may not be released"),
  // refactor → Performance
  R1713: c("Performance", "consider-using-join: quadratic string concatenation in a loop"),
  R1728: c("Performance", "consider-using-generator: builds a list only to consume it"),
  R1729: c("Performance", "use-a-generator: any()/all() over a list comprehension cannot stop early"),
  R1734: c("Performance", "use-list-literal: `[]` avoids a call (Pylint's rationale)"),
  R1735: c("Performance", "use-dict-literal: `{}` avoids a call (Pylint's rationale)"),
  // refactor → Style
  R0022: c("Other", "useless-option-value: about a Pylint pragma, not the code"),
  R0202: c("Style", "no-classmethod-decorator: decorator notation"),
  R0203: c("Style", "no-staticmethod-decorator: decorator notation"),
  R0205: c("Style", "useless-object-inheritance: Python 2 notation"),
  R0402: c("Style", "consider-using-from-import: import notation"),
  R1725: c("Style", "super-with-arguments: Python 2 notation"),
  // warning → Refactor (dead, redundant or structural)
  W0105: c("Refactor", `pointless-string-statement: ${PY_DEAD}`),
  W0107: c("Refactor", `unnecessary-pass: ${PY_DEAD}`),
  W0108: c("Refactor", `unnecessary-lambda: ${PY_SIMPLER}`),
  W0120: c("Refactor", `useless-else-on-loop: ${PY_SIMPLER}`),
  W0212: c("Refactor", "protected-access: encapsulation (design)"),
  W0238: c("Refactor", `unused-private-member: ${PY_DEAD}`),
  W0246: c("Refactor", `useless-parent-delegation: ${PY_DEAD}`),
  W0404: c("Refactor", `reimported: ${PY_DEAD}`),
  W0602: c("Refactor", "global-variable-not-assigned: global state (design)"),
  W0603: c("Refactor", "global-statement: global state (design)"),
  W0604: c("Refactor", "global-at-module-level: global state (design)"),
  W0611: c("Refactor", `unused-import: ${PY_DEAD}`),
  W0612: c("Refactor", `unused-variable: ${PY_DEAD}`),
  W0613: c("Refactor", `unused-argument: ${PY_DEAD}`),
  W0614: c("Refactor", `unused-wildcard-import: ${PY_DEAD}`),
  W0641: c("Refactor", `possibly-unused-variable: ${PY_DEAD}`),
  W2301: c("Refactor", `unnecessary-ellipsis: ${PY_DEAD}`),
  W3301: c("Refactor", `nested-min-max: ${PY_SIMPLER}`),
  // warning → Performance
  W1201: c("Performance", "logging-not-lazy: formats messages that may never be logged"),
  W1202: c("Performance", "logging-format-interpolation: formats messages that may never be logged"),
  W1203: c("Performance", "logging-fstring-interpolation: formats messages that may never be logged"),
  W1518: c("Performance", "method-cache-max-size-none: an unbounded cache keeps every instance alive"),
  // warning → Style
  W0301: c("Style", "unnecessary-semicolon: notation"),
  W0401: c("Style", "wildcard-import: import notation"),
  W1309: c("Style", "f-string-without-interpolation: notation"),
  W1310: c("Style", "format-string-without-interpolation: notation"),
  W1405: c("Style", "inconsistent-quotes: notation"),
  W1406: c("Style", "redundant-u-string-prefix: Python 2 notation"),
  // warning / error → Other (environment, analyzer, notes)
  W0012: c("Other", "unknown-option-value: about a Pylint pragma, not the code"),
  W0511: c("Other", "fixme: a TODO note, not a defect"),
  W2402: c("Other", "non-ascii-file-name: the file name is chosen by the harness"),
  W2601: c("Other", "using-f-string-in-unsupported-version: about the configured Python version"),
  W2602: c("Other", "using-final-decorator-in-unsupported-version: about the configured Python version"),
  W4901: c("Other", "deprecated-module: the platform's deprecation, not a defect of the code"),
  W4902: c("Other", "deprecated-method: the platform's deprecation, not a defect of the code"),
  W4903: c("Other", "deprecated-argument: the platform's deprecation, not a defect of the code"),
  W4904: c("Other", "deprecated-class: the platform's deprecation, not a defect of the code"),
  W4905: c("Other", "deprecated-decorator: the platform's deprecation, not a defect of the code"),
  E0401: c("Other", "import-error: a module not installed where the analyzer runs"),
};

// ---- clang-tidy ---------------------------------------------------------------------------------------

/** clang-tidy check families, by prefix (the longest listed prefix of a check wins). */
const CLANG_TIDY_GROUPS: Table = {
  "bugprone-": c("Error-prone", "bug-prone constructs"),
  "clang-diagnostic-": c("Error-prone", "compiler warnings (-Wall) and errors (the file does not compile)"),
  "clang-diagnostic-unused-": c("Refactor", "unused variables, functions, values: dead code"),
  "cppcoreguidelines-": c("Error-prone", "C++ Core Guidelines safety profiles: types, bounds, lifetimes"),
  "misc-": c("Error-prone", "miscellaneous checks, mostly suspicious code"),
  "misc-unused-": c("Refactor", "unused parameters, using-declarations, aliases: dead code"),
  "modernize-": c("Refactor", "replace outdated constructs by their modern equivalents"),
  "performance-": c("Performance", "performance"),
  "readability-": c("Style", "readability: naming, notation, idiom"),
  "readability-redundant-": c("Refactor", "redundant code"),
};

/** Checks whose concern differs from their family's. */
const CLANG_TIDY_OVERRIDES: Table = {
  "cppcoreguidelines-avoid-goto": c("Refactor", "control-flow structure"),
  "cppcoreguidelines-avoid-non-const-global-variables": c("Refactor", "global state (design)"),
  "cppcoreguidelines-macro-usage": c("Refactor", "macros to constexpr/inline functions"),
  "cppcoreguidelines-prefer-member-initializer": c("Style", "where a member is initialized"),
  "cppcoreguidelines-special-member-functions": c("Refactor", "class design (rule of five)"),
  "misc-no-recursion": c("Refactor", "control-flow structure"),
  "misc-non-private-member-variables-in-classes": c("Refactor", "encapsulation (design)"),
  "misc-static-assert": c("Style", "assert notation"),
  "misc-uniqueptr-reset-release": c("Style", "notation"),
  "modernize-deprecated-headers": c("Style", "header notation (<stdio.h> → <cstdio>)"),
  "modernize-deprecated-ios-base-aliases": c("Style", "type-name notation"),
  "modernize-concat-nested-namespaces": c("Style", "namespace notation"),
  "modernize-pass-by-value": c("Performance", "copies that a move avoids"),
  "modernize-raw-string-literal": c("Style", "literal notation"),
  "modernize-redundant-void-arg": c("Style", "notation"),
  "modernize-return-braced-init-list": c("Style", "notation"),
  "modernize-shrink-to-fit": c("Performance", "memory release"),
  "modernize-unary-static-assert": c("Style", "notation"),
  "modernize-use-auto": c("Style", "type notation"),
  "modernize-use-bool-literals": c("Style", "literal notation"),
  "modernize-use-emplace": c("Performance", "constructs in place instead of copying"),
  "modernize-use-nodiscard": c("Error-prone", "results that must not be dropped"),
  "modernize-use-override": c("Error-prone", "a method that silently stops overriding"),
  "modernize-use-transparent-functors": c("Style", "functor notation"),
  "modernize-use-using": c("Style", "alias notation (typedef → using)"),
  "readability-convert-member-functions-to-static": c("Refactor", "class design"),
  "readability-delete-null-pointer": c("Refactor", "a redundant check"),
  "readability-duplicate-include": c("Refactor", "redundant code"),
  "readability-else-after-return": c("Refactor", "control-flow structure"),
  "readability-function-cognitive-complexity": c("Refactor", "complexity"),
  "readability-misleading-indentation": c("Error-prone", "indentation that hides the control flow"),
  "readability-simplify-boolean-expr": c("Refactor", "simplifiable logic"),
  "readability-simplify-subscript-expr": c("Refactor", "simplifiable expression"),
  "readability-suspicious-call-argument": c("Error-prone", "arguments that look swapped"),
  "readability-use-anyofallof": c("Refactor", "a loop that is an algorithm"),
};

// ---- PMD ----------------------------------------------------------------------------------------------

/** PMD's Java rule categories (the file of `category/java/<name>.xml`). */
const PMD_GROUPS: Table = {
  bestpractices: c("Error-prone", "best practices: mostly mistakes waiting to happen"),
  codestyle: c("Style", "code style"),
  design: c("Refactor", "design: complexity and structure"),
  documentation: c("Style", "comments"),
  errorprone: c("Error-prone", "error-prone constructs"),
  multithreading: c("Error-prone", "concurrency bugs"),
  performance: c("Performance", "performance"),
  security: c("Error-prone", "security bugs"),
};

/**
 * The PMD category of every rule in lint/config/pmd-ruleset.xml. An alert carries only the rule name, so
 * the category file comes from here (an alert of a rule missing here falls back to the category PMD
 * reported for it, see {@link pmdGroupOfRuleset}).
 */
const PMD_RULE_GROUPS: Readonly<Record<string, readonly string[]>> = {
  bestpractices: [
    "AvoidMessageDigestField",
    "AvoidReassigningLoopVariables",
    "AvoidReassigningParameters",
    "AvoidStringBufferField",
    "AvoidUsingHardCodedIP",
    "CheckResultSet",
    "ConstantsInInterface",
    "DefaultLabelNotLastInSwitch",
    "DoubleBraceInitialization",
    "ForLoopCanBeForeach",
    "GuardLogStatement",
    "LiteralsFirstInComparisons",
    "LooseCoupling",
    "MissingOverride",
    "NonExhaustiveSwitch",
    "OneDeclarationPerLine",
    "PreserveStackTrace",
    "PrimitiveWrapperInstantiation",
    "SimplifiableTestAssertion",
    "UnusedAssignment",
    "UnusedFormalParameter",
    "UnusedLabel",
    "UnusedLocalVariable",
    "UnusedPrivateField",
    "UnusedPrivateMethod",
    "UseCollectionIsEmpty",
    "UseStandardCharsets",
  ],
  codestyle: [
    "AvoidDollarSigns",
    "ClassNamingConventions",
    "ControlStatementBraces",
    "EmptyControlStatement",
    "ExtendsObject",
    "FieldNamingConventions",
    "FinalParameterInAbstractMethod",
    "ForLoopShouldBeWhileLoop",
    "FormalParameterNamingConventions",
    "IdenticalCatchBranches",
    "LambdaCanBeMethodReference",
    "LocalVariableNamingConventions",
    "MethodNamingConventions",
    "PackageCase",
    "ShortMethodName",
    "ShortVariable",
    "TypeParameterNamingConventions",
    "UnnecessaryAnnotationValueElement",
    "UnnecessaryConstructor",
    "UnnecessaryFullyQualifiedName",
    "UnnecessaryImport",
    "UnnecessaryModifier",
    "UnnecessaryReturn",
    "UnnecessarySemicolon",
    "UselessParentheses",
    "UselessQualifiedThis",
    "VariableCanBeInlined",
  ],
  design: [
    "AbstractClassWithoutAnyMethod",
    "AvoidDeeplyNestedIfStmts",
    "ClassWithOnlyPrivateConstructorsShouldBeFinal",
    "CognitiveComplexity",
    "CollapsibleIfStatements",
    "CyclomaticComplexity",
    "DoNotExtendJavaLangError",
    "FinalFieldCouldBeStatic",
    "ImmutableField",
    "InstantiableUtilityClass",
    "LogicInversion",
    "NPathComplexity",
    "ProtectedMemberInFinalClass",
    "SimplifiedTernary",
    "SimplifyBooleanExpressions",
    "SimplifyBooleanReturns",
    "SimplifyConditional",
    "SingularField",
    "UselessOverridingMethod",
  ],
  documentation: ["DanglingJavadoc", "UncommentedEmptyConstructor", "UncommentedEmptyMethodBody"],
  errorprone: [
    "AssignmentInOperand",
    "AssignmentToNonFinalStatic",
    "AvoidAccessibilityAlteration",
    "AvoidBranchingStatementAsLastInLoop",
    "AvoidCatchingGenericException",
    "AvoidDecimalLiteralsInBigDecimalConstructor",
    "AvoidInstanceofChecksInCatchClause",
    "AvoidMultipleUnaryOperators",
    "AvoidUsingOctalValues",
    "BrokenNullCheck",
    "ClassCastExceptionWithToArray",
    "CloneMethodMustBePublic",
    "CloneMethodMustImplementCloneable",
    "CloneMethodReturnTypeMustMatchClassName",
    "CloseResource",
    "CollectionTypeMismatch",
    "CompareObjectsWithEquals",
    "ComparisonWithNaN",
    "DoNotCallGarbageCollectionExplicitly",
    "DoNotExtendJavaLangThrowable",
    "DontUseFloatTypeForLoopIndices",
    "EmptyCatchBlock",
    "EmptyFinalizer",
    "EqualsNull",
    "IdempotentOperations",
    "ImplicitSwitchFallThrough",
    "InstantiationToGetClass",
    "JumbledIncrementer",
    "MisplacedNullCheck",
    "MissingStaticMethodInNonInstantiatableClass",
    "NonCaseLabelInSwitch",
    "NonStaticInitializer",
    "OverrideBothEqualsAndHashCodeOnComparable",
    "OverrideBothEqualsAndHashcode",
    "ProperCloneImplementation",
    "ProperLogger",
    "ReturnEmptyCollectionRatherThanNull",
    "ReturnFromFinallyBlock",
    "SingleMethodSingleton",
    "SingletonClassReturningNewInstance",
    "SuspiciousEqualsMethodName",
    "SuspiciousHashcodeMethodName",
    "SuspiciousOctalEscape",
    "UnconditionalIfStatement",
    "UnnecessaryConversionTemporary",
    "UnusedNullCheckInEquals",
    "UnusedReturnValue",
    "UseEqualsToCompareStrings",
    "UseLocaleWithCaseConversions",
  ],
  multithreading: [
    "AvoidThreadGroup",
    "AvoidUsingVolatile",
    "DontCallThreadRun",
    "DoubleCheckedLocking",
    "NonThreadSafeSingleton",
    "UnsynchronizedStaticFormatter",
    "UseNotifyAllInsteadOfNotify",
  ],
  performance: [
    "AddEmptyString",
    "AppendCharacterWithChar",
    "AvoidArrayLoops",
    "AvoidCalendarDateCreation",
    "AvoidFileStream",
    "AvoidInstantiatingObjectsInLoops",
    "BigIntegerInstantiation",
    "ConsecutiveAppendsShouldReuse",
    "ConsecutiveLiteralAppends",
    "InefficientEmptyStringCheck",
    "InefficientStringBuffering",
    "InsufficientStringBufferDeclaration",
    "OptimizableToArrayCall",
    "RedundantFieldInitializer",
    "StringInstantiation",
    "StringToString",
    "TooFewBranchesForSwitch",
    "UseArrayListInsteadOfVector",
    "UseArraysAsList",
    "UseIOStreamsWithApacheCommonsFileItem",
    "UseIndexOfChar",
    "UseStringBufferForStringAppends",
    "UseStringBufferLength",
    "UselessStringValueOf",
  ],
};

const PMD_RULE_GROUP: ReadonlyMap<string, string> = new Map(
  Object.entries(PMD_RULE_GROUPS).flatMap(([group, rules]) => rules.map((rule) => [rule, group] as const)),
);

/**
 * The synthetic rule an analyzer reports for a file it cannot parse (PMD's processing error; Pylint's own
 * is E0001 syntax-error, clang-tidy's clang-diagnostic-error): the file is broken, an Error-prone alert.
 */
export const PARSE_ERROR_RULE = "ProcessingError";

/** PMD rules whose concern differs from their category's. */
const PMD_OVERRIDES: Table = {
  [PARSE_ERROR_RULE]: c("Error-prone", "synthetic: PMD could not parse the file"),
  // best practices → Refactor (dead code, structure)
  ConstantsInInterface: c("Refactor", "interface design"),
  ForLoopCanBeForeach: c("Refactor", "a simpler loop does the same"),
  LooseCoupling: c("Refactor", "coupling to implementation types (design)"),
  SimplifiableTestAssertion: c("Refactor", "a simpler assertion does the same"),
  UnusedAssignment: c("Refactor", "dead store"),
  UnusedFormalParameter: c("Refactor", "dead code"),
  UnusedLabel: c("Refactor", "dead code"),
  UnusedLocalVariable: c("Refactor", "dead code"),
  UnusedPrivateField: c("Refactor", "dead code"),
  UnusedPrivateMethod: c("Refactor", "dead code"),
  // best practices → Performance / Style
  AvoidStringBufferField: c("Performance", "buffers kept alive with the object"),
  DoubleBraceInitialization: c("Performance", "an anonymous class per initialization"),
  GuardLogStatement: c("Performance", "builds log messages that may never be logged"),
  PrimitiveWrapperInstantiation: c("Performance", "boxing that valueOf caches"),
  AvoidReassigningParameters: c("Style", "variable use"),
  DefaultLabelNotLastInSwitch: c("Style", "order of labels"),
  OneDeclarationPerLine: c("Style", "declaration notation"),
  UseCollectionIsEmpty: c("Style", "idiom"),
  UseStandardCharsets: c("Style", "idiom"),
  // code style → Refactor (dead or redundant code)
  EmptyControlStatement: c("Refactor", "dead code"),
  IdenticalCatchBranches: c("Refactor", "duplicated code"),
  UnnecessaryConstructor: c("Refactor", "dead code"),
  UnnecessaryImport: c("Refactor", "dead code (as Pylint's unused-import)"),
  UnnecessaryReturn: c("Refactor", "dead code"),
  VariableCanBeInlined: c("Refactor", "a redundant variable"),
};

// ---- lookup -------------------------------------------------------------------------------------------

/** Where a rule's category comes from. */
export type TaxonomyEntry = Classification & {
  /** The group default that applied (`W`, `bugprone-`, `design`), or the rule itself for an override. */
  source: { kind: "group"; group: string } | { kind: "override"; rule: string };
};

function pylintGroup(ruleId: string): string | undefined {
  const letter = ruleId[0];
  return letter !== undefined && Object.hasOwn(PYLINT_GROUPS, letter) && /^[A-Z]\d{4}$/.test(ruleId)
    ? letter
    : undefined;
}

function clangTidyGroup(ruleId: string): string | undefined {
  let best: string | undefined;
  for (const prefix of Object.keys(CLANG_TIDY_GROUPS)) {
    if (ruleId.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  return best;
}

/** PMD's report names for its categories (the JSON `ruleset` field) → the category file name. */
export function pmdGroupOfRuleset(ruleset: string): string | undefined {
  const group = ruleset.toLowerCase().replace(/[^a-z]/g, "");
  return Object.hasOwn(PMD_GROUPS, group) ? group : undefined;
}

const TABLES: Readonly<
  Record<LintTool, { groups: Table; overrides: Table; groupOf: (ruleId: string) => string | undefined }>
> = {
  pylint: { groups: PYLINT_GROUPS, overrides: PYLINT_OVERRIDES, groupOf: pylintGroup },
  "clang-tidy": { groups: CLANG_TIDY_GROUPS, overrides: CLANG_TIDY_OVERRIDES, groupOf: clangTidyGroup },
  pmd: { groups: PMD_GROUPS, overrides: PMD_OVERRIDES, groupOf: (rule) => PMD_RULE_GROUP.get(rule) },
};

/**
 * How the taxonomy classifies a rule: its override, else its group's default; `undefined` when the rule
 * is in no table (a rule outside the shipped configuration). `group` is a fallback group for rules
 * the tables do not list (PMD: the category the report gave).
 */
export function taxonomyEntry(tool: LintTool, ruleId: string, group?: string): TaxonomyEntry | undefined {
  const table = TABLES[tool];
  if (Object.hasOwn(table.overrides, ruleId)) {
    return { ...(table.overrides[ruleId] as Classification), source: { kind: "override", rule: ruleId } };
  }
  const found = table.groupOf(ruleId) ?? group;
  if (found === undefined || !Object.hasOwn(table.groups, found)) return undefined;
  return { ...(table.groups[found] as Classification), source: { kind: "group", group: found } };
}

/** The category of a rule; "Other" for a rule the taxonomy does not cover. */
export function categoryOf(tool: LintTool, ruleId: string, group?: string): AlertCategory {
  return taxonomyEntry(tool, ruleId, group)?.category ?? "Other";
}

/** The override table of a tool (rule → classification), for reports and the coverage test. */
export function taxonomyOverrides(tool: LintTool): Readonly<Record<string, Classification>> {
  return TABLES[tool].overrides;
}

/** The PMD category file of each rule the PMD table lists. */
export function pmdRuleGroups(): ReadonlyMap<string, string> {
  return PMD_RULE_GROUP;
}
