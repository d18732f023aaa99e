package awsclient

import "context"

// Region is the region the clients call: the provider's, else what the
// SDK's configuration sources say (AWS_REGION, the profile).
func (c *Clients) Region(ctx context.Context) (string, error) {
	cfg, err := c.load(ctx)
	if err != nil {
		return "", err
	}
	return cfg.Region, nil
}
