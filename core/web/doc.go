// Package web serves the robot's web page: the robot drawn live (its
// three body sections at their angles, the eye, the LED ring's colours),
// the conversation as it happens (what it heard and how surely, which
// intent matched and why, what it said and did), a box to type to it, its
// skills and their intents, and its status and recent warnings.
//
// The page is plain HTML, CSS and JavaScript embedded in the binary;
// live updates go to the browser as server-sent events. The server reads
// the bus and the small interfaces it is handed (Body, Lights, Skills,
// Shell); it never imports the device layer.
//
// Who may do what: anyone who can load the page sees it. Talking to the
// robot (typing, and the stop button, which is saying "stop") is open
// when the page is served on a loopback address and needs technician
// mode otherwise; every other change (volume, configuration) needs
// technician mode, unlocked with the technician PIN through the
// diagnostics shell's own check and lockout (core/diag). Requests are
// validated for method, size, origin and rate; see docs/web.md.
package web
