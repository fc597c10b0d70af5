package cli

import "github.com/bonsai-run/bonsai/internal/web"

// webCredentials is the credential store as the web settings page uses
// it: the same credentials.json as 'bonsai credentials', and the same
// sources as 'credentials list'.
type webCredentials struct{ a *app }

func (c webCredentials) KeySources() ([]web.KeySource, error) {
	srcs, err := c.a.keys().Sources()
	if err != nil {
		return nil, err
	}
	out := make([]web.KeySource, len(srcs))
	for i, s := range srcs {
		out[i] = web.KeySource{Name: s.Name, Source: s.Source, Variable: s.Variable, Last4: s.Last4, SetAt: s.SetAt, Shadowed: s.Shadowed}
	}
	return out, nil
}

func (c webCredentials) SetKey(name, secret string) error {
	s, err := c.a.credentialStore()
	if err != nil {
		return err
	}
	defer c.a.keys().Forget()
	return s.Set(name, secret)
}

func (c webCredentials) RemoveKey(name string) error {
	s, err := c.a.credentialStore()
	if err != nil {
		return err
	}
	defer c.a.keys().Forget()
	return s.Remove(name)
}
