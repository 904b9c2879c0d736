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
//   - [Tier] is a source of the intent stack (intent.Generaliser and
//     intent.Learner): one model per language, learnt from the stack's
//     template engine off the utterance path; its stage claims after
//     intents-high. Slots come from aligning the utterance with the
//     intent's templates (TemplateEngine.AlignSlots, a [SlotAligner]);
//     intents the round may not dispatch (context rules, CONTEXT-1;
//     denylists) are out of the running; an intent it finds likely but
//     not likely enough is offered refused, for the robot to ask about.
//
// docs/paraphrase.md describes the model, its thresholds and its figures.
package paraphrase
