// Command bonsai is the Bonsai runtime: board CLI, heartbeat, web UI and agent.
package main

func main() {}
