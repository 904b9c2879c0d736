// Package intent implements the OVOS template intent stack: the sentence
// template grammar (OVOS-INTENT-1), locale resource files (OVOS-INTENT-2)
// and a template intent engine (OVOS-INTENT-3, OVOS-INTENT-4) that matches
// ASR-normalised utterances against registered templates.
//
// The pieces build on each other:
//
//   - [Parse] and [Expand] turn one template such as
//     "turn (on|off) [the] {device}" into its exact sample set (§3.2).
//   - [ReadLines] and [LoadLocale] read a skill's locale folder, validate every
//     file and check the languages against each other.
//   - [TemplateEngine] indexes [TemplateIntent] definitions (the REG-06 payload
//     plus its scope) and answers [TemplateEngine.Match] for each utterance.
//
// The package dispatches nothing and knows no bus topics; callers wire
// registrations and matches to the rest of the runtime.
package intent
