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
// content authors wrote it. They are evaluated with github.com/expr-lang/expr,
// whose syntax is close enough for what MIMs use. Before compiling, the
// source is translated token by token outside string literals, keeping every
// column where it was (so errors point at the author's text):
//
//	===        becomes ==   (padded with a space)
//	!==        becomes !=   (padded with a space)
//	null       becomes nil  (padded)
//	undefined  becomes nil  (padded)
//
// and the compiled tree gets JavaScript's truthiness: the operands of !, &&,
// || and the condition of ?: are tested as JavaScript tests them (false, 0,
// NaN, "", null and undefined are false, everything else true), and a && b
// and a || b yield an operand as in JavaScript, so ${speaker || "friend"}
// works. A condition's result is tested the same way; "" (or only blanks)
// means always. Single-quoted strings need no translation.
//
// Names an expression may use are the roots of PromptData (speaker,
// referent, loop, dt, location, jibo, skill); any other root name is a load
// error. Expr's now() is disabled so that time comes only from PromptData.
// Each expression is limited to MaxExprNodes nodes when compiled and to
// MaxExprMemory units of expr's memory budget when run. A condition that
// fails when run (referent.gender when there is no referent, as a
// JavaScript TypeError would) drops its prompt; a template that fails, or
// yields null, undefined or an object, makes its prompt ineligible and the
// reason is logged: a half-resolved ${…} is never spoken.
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
