// Package mim reads Jibo's MIM files (spec/jibo.md §5.1) and turns them
// into JCP SLIMs the way Jibo's Slimmer did (§5.2).
//
// A MIM ("multi-modal interaction module") is a JSON file of prompts: what
// the robot may say for one dialogue step, in which category
// (Entry-Core, Errors) and sub-category (AN announcement, Q question, NM
// no-match, NI no-input, …), under which condition, with which weight. The
// Slimmer picks one eligible prompt, resolves its ${…} templates against
// PromptData and emits a SLIM: PLAY with the ESML, LISTEN with the MIM's
// rule for questions, DISPLAY with the MIM's gui once the error ladder has
// gone far enough.
//
// # Files
//
// Parse reads one file as shipped: every member of §5.1 under its wire name,
// anything else kept in Extra and written back by MarshalJSON, which writes
// the canonical form (known members in a fixed order, then the rest sorted by
// name, markup not escaped). Parse validates everything the Slimmer relies on
// and compiles every condition and template, so a MIM that parses can be
// spoken; errors are *Error values naming the file, the prompt and the
// member. LoadDir reads a folder tree of .mim files into a Set, keyed by
// mim_id (the file's base name when the file has none).
//
// # Expressions
//
// Conditions and the expressions inside ${…} are JavaScript as Jibo's
// content authors wrote it, evaluated by this package's own interpreter of
// JavaScript's expression grammar (ES5, without assignment, object
// literals or function literals): number, string ('…', "…", `…` without
// ${}) and array literals, true, false, null, undefined, NaN, Infinity,
// member access (a.b, a[i]), calls, the unary ! - + typeof, the binary
// * / % + - < <= > >= == != === !== && || and ?:, with JavaScript's
// meaning: == converts as JavaScript does and === does not, null and
// undefined differ (a missing member is undefined) but are == each other,
// + joins text when either side is text, a && b and a || b yield an
// operand (${speaker || "friend"}), and !, &&, ||, ?: and a condition's
// result test JavaScript's truthiness (false, 0, NaN, "", null and
// undefined are false, everything else true). Strings have length,
// toLowerCase, toUpperCase, trim, includes, startsWith, endsWith and
// indexOf; arrays have length, includes, indexOf and join. and, or and not
// are accepted for &&, || and !. A condition that is "" (or only blanks)
// means always.
//
// Names an expression may use are the roots of PromptData (speaker,
// referent, loop, dt, location, jibo, skill); any other name is a load
// error, so time comes only from PromptData. Objects are maps with string
// keys and structs (fields by JSON name, else Go name). Each expression is
// limited to MaxExprBytes of source and MaxExprNodes nodes when compiled
// and may build at most MaxExprMemory bytes of text and arrays when run;
// it has no loops, so it ends. A condition that fails when run
// (referent.gender when there is no referent, as a JavaScript TypeError
// would) drops its prompt; a template that fails, or yields null,
// undefined or an object, makes its prompt ineligible and the reason is
// logged: a half-resolved ${…} is never spoken.
//
// Template values are inserted as text, escaped for ESML (&, <, >, quotes),
// so data from users and skills cannot break the markup; a skill that
// means to insert markup passes an ESML value. The resolved prompt must
// still parse as ESML, or the prompt is ineligible.
//
// # Semi-specific responses
//
// Chitchat answers some questions with one response set per category of the
// thing talked about: <prefix>_SS_<Category> (OI_USR_Likes_SS_Color). The
// category lists' real format is unknown; this package reads a JSON object
// of category name to member values ({"Color": ["red", "green"]}, see
// ParseCategories) and SemiSpecific picks the MIM for a value.
package mim
