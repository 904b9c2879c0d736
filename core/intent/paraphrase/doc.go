// Package paraphrase is the generalising tier of the intent stack: a
// classifier trained at registration from the registered templates,
// vocabularies and entity lists alone (no network, no other model) that
// understands what the templates do not spell ("boost the volume", "do you
// happen to know what time it is") and abstains, rather than guess, when it
// is not sure.
//
//   - [Train] samples each intent's templates through their structure
//     (never expanding a huge one whole), adds how people wrap requests,
//     and learns a softmax over the intents and a "none" class of everyday
//     sentences, on word and character n-grams; held-out samples calibrate
//     it.
//   - [Model.Classify] ranks the intents with calibrated probabilities and
//     claims the winner only above the calibrated thresholds and with
//     evidence in the words; it says why it abstained and which features
//     carried the winner. [Model.Slots] finds slot values without the
//     template engine.
//   - [Tier] is the pipeline plugin: one model per language, retrained when
//     the intents change, slots through a [SlotAligner] when one is wired,
//     intents out of the running when the session's context does not allow
//     them (CONTEXT-1).
//
// docs/paraphrase.md describes the model, its thresholds and its figures.
package paraphrase
