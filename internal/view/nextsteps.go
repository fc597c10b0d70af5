package view

import "fmt"

// The kinds of Step.
const (
	StepProject = "project" // no active project yet
	StepKey     = "key"     // a model agents would use has no key
)

// Step is one thing a person does before agents can work, as `bonsai up`
// prints it and the banner of every web page shows it, until it is done.
type Step struct {
	Kind string `json:"kind"`
	// Text says what to do, in a sentence.
	Text string `json:"text"`
	// Command does it from the command line.
	Command string `json:"command"`
	// Link is the web page that does it, and LinkText its name.
	Link     string `json:"link"`
	LinkText string `json:"linkText"`
}

// NextSteps lists what stands between a fresh data directory and agents
// at work: a project to add while there is no active one, and a key to
// store for each model in models (the models agents would use: those of
// the active projects, or config.json's default one while there is no
// project) that has a problem. Never nil.
func NextSteps(activeProjects int, models []ModelStatus) []Step {
	out := []Step{}
	if activeProjects == 0 {
		out = append(out, Step{Kind: StepProject,
			Text:    "Add a project: the git repository agents work in.",
			Command: "bonsai project add <slug> --repo <path or URL>", Link: "/#add-project", LinkText: "Add a project"})
	}
	for _, m := range models {
		if m.Problem == "" {
			continue
		}
		p := providerOf(m.Model)
		out = append(out, Step{Kind: StepKey,
			Text:    fmt.Sprintf("Store a key for %s: agents use the model %s, which cannot run: %s", p, m.Model, m.Problem),
			Command: "bonsai credentials set " + p, Link: "/settings", LinkText: "Status & settings"})
	}
	return out
}
