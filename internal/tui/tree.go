package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// treeEntries are the entries /tree lists: the user's prompts and the
// assistant's answers, in file order, on every branch.
func treeEntries(s *session.File) []session.Entry {
	var out []session.Entry
	for _, e := range s.Entries() {
		if m := e.Message; m != nil && (m.Role == llm.RoleUser || m.Role == llm.RoleAssistant && m.Text() != "") {
			out = append(out, e)
		}
	}
	return out
}

// cmdTree lists the session's tree, or continues from entry N of it:
// the next prompt branches from there, beside what followed it.
func (m *Model) cmdTree(arg string) tea.Cmd {
	sess := m.rt.Agent.Session()
	ents := treeEntries(sess)
	if arg == "" {
		m.tr.notice(treeText(sess, ents))
		return nil
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || n > len(ents) {
		m.tr.add(kindError, fmt.Sprintf("/tree %s: give an entry's number, 1 to %d (/tree lists them)", arg, len(ents)))
		return nil
	}
	if err := sess.Branch(ents[n-1].ID); err == nil {
		err = m.rt.Agent.SetSession(sess) // reloads the context from the new leaf
	}
	if err != nil {
		m.tr.add(kindError, err.Error())
		return nil
	}
	m.reloadTranscript()
	m.tr.notice(fmt.Sprintf("continuing from entry %d: the next prompt starts a branch there", n))
	return nil
}

// treeText shows the entries numbered, indented by the forks above
// them, those on the current branch marked with *.
func treeText(sess *session.File, ents []session.Entry) string {
	onPath := map[string]bool{}
	for _, e := range sess.PathTo(sess.Leaf()) {
		onPath[e.ID] = true
	}
	parentOf, children := map[string]string{}, map[string]int{}
	for _, e := range sess.Entries() {
		parentOf[e.ID] = e.ParentID
		children[e.ParentID]++
	}
	var b strings.Builder
	b.WriteString("Session tree (* on the current branch; /tree N continues from N):")
	for i, e := range ents {
		forks := 0
		for p := parentOf[e.ID]; p != ""; p = parentOf[p] {
			if children[p] > 1 {
				forks++
			}
		}
		mark := " "
		if onPath[e.ID] {
			mark = "*"
		}
		fmt.Fprintf(&b, "\n%s%3d %s%s: %s", mark, i+1, strings.Repeat("  ", forks), e.Message.Role, clipBytes(oneLine(e.Message.Text()), 60))
	}
	return b.String()
}

// reloadTranscript shows the agent's context anew.
func (m *Model) reloadTranscript() {
	m.tr.clear()
	m.tr.notice(banner(m.rt))
	m.showHistory()
}

// sessionFiles are the workspace's session files, newest first.
func sessionFiles(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
			names = append(names, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(names)
	slices.Reverse(names)
	return names
}

// cmdResume lists the workspace's recent sessions, or resumes the Nth.
func (m *Model) cmdResume(arg string) tea.Cmd {
	if m.rt.Sessions.Memory {
		m.tr.add(kindError, "/resume: this run keeps its session in memory (--no-session)")
		return nil
	}
	files := sessionFiles(m.rt.Sessions.Dir)
	if len(files) > 20 {
		files = files[:20]
	}
	if arg == "" {
		var b strings.Builder
		b.WriteString("Recent sessions (/resume N opens one):")
		for i, f := range files {
			fmt.Fprintf(&b, "\n%3d %s", i+1, filepath.Base(f))
		}
		if len(files) == 0 {
			b.WriteString(" none")
		}
		m.tr.notice(b.String())
		return nil
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || n > len(files) {
		m.tr.add(kindError, fmt.Sprintf("/resume %s: give a session's number, 1 to %d (/resume lists them)", arg, len(files)))
		return nil
	}
	sess, err := m.rt.Sessions.Open(files[n-1], false)
	if err == nil {
		err = m.swap(sess)
	}
	if err != nil {
		m.tr.add(kindError, err.Error())
		return nil
	}
	m.reloadTranscript()
	return nil
}
