package tracker

// The GraphQL operations Bonsai sends to Linear, each named so that
// Linear's logs (and the fake) tell them apart.
const (
	lnIssueFields = `id identifier number title description url updatedAt trashed
    state { name type } labels { nodes { name } } creator { id name displayName } assignee { id name displayName } team { key }`
	lnListQuery = `query BonsaiIssues($filter: IssueFilter, $after: String) {
  issues(filter: $filter, first: 50, after: $after, orderBy: updatedAt) {
    nodes { ` + lnIssueFields + ` }
    pageInfo { hasNextPage endCursor }
  }
}`
	lnIssueQuery = `query BonsaiIssue($id: String!) {
  issue(id: $id) { ` + lnIssueFields + ` }
}`
	lnCommentsQuery = `query BonsaiComments($id: String!, $since: DateTimeOrDuration, $after: String) {
  issue(id: $id) {
    team { key members(first: 250) { nodes { id } } }
    comments(first: 50, after: $after, orderBy: createdAt, filter: { updatedAt: { gte: $since } }) {
      nodes { id body url createdAt updatedAt editedAt user { id name displayName } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`
	lnCommentCreate = `mutation BonsaiComment($input: CommentCreateInput!) {
  commentCreate(input: $input) { success comment { id body url createdAt updatedAt user { id name displayName } } }
}`
	lnMembersQuery = `query BonsaiTeamMembers($team: String!) {
  teams(filter: { key: { eq: $team } }) { nodes { key members(first: 250) { nodes { id } } } }
}`
	lnStatesQuery = `query BonsaiStates($team: String!) {
  workflowStates(filter: { team: { key: { eq: $team } } }, first: 100) { nodes { id name type } }
}`
	lnIssueUpdate = `mutation BonsaiIssueState($id: String!, $input: IssueUpdateInput!) {
  issueUpdate(id: $id, input: $input) { success }
}`
)
