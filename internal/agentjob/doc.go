// Package agentjob is what the heartbeat and an agent runner share about
// one run: the runner contract (AgentRunner, the Job with its Brief, the
// Outcome, and the optional Charger and readiness checks), the Steering
// that carries people's comments to a running agent, and the parts every
// runner renders the same way: the ticket block, persona and rules of the
// system prompt (Sections), the task message (TaskPrompt), a steering
// message (SteerText), the command gate of a job (Gate), the board's usage
// of a provider's (UsageOf) and the error of a run that met a sandbox limit
// (LimitError).
//
// It depends on neither the agent loop nor the heartbeat: the heartbeat
// builds Jobs, and each runner (heartbeat/agentrunner for Bonsai's own
// loop, engine for external agent CLIs) runs them.
package agentjob
