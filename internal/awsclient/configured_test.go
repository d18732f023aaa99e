package awsclient

import "testing"

func TestConfigured(t *testing.T) {
	for _, k := range configuredEnv {
		t.Setenv(k, "")
	}
	cases := []struct {
		name string
		cfg  Config
		env  map[string]string
		want bool
	}{
		{"nothing", Config{}, nil, false},
		{"shared config files only", Config{SharedConfigFiles: []string{"/x"}}, nil, false},
		{"region in the provider", Config{Region: "us-east-1"}, nil, true},
		{"profile in the provider", Config{Profile: "p"}, nil, true},
		{"endpoint in the provider", Config{Endpoints: Endpoints{EC2: "http://127.0.0.1:1"}}, nil, true},
		{"ssm endpoint in the provider", Config{Endpoints: Endpoints{SSM: "http://127.0.0.1:1"}}, nil, true},
		{"iam endpoint in the provider", Config{Endpoints: Endpoints{IAM: "http://127.0.0.1:1"}}, nil, true},
		{"assume role", Config{AssumeRole: &AssumeRole{RoleARN: "arn:aws:iam::1:role/x"}}, nil, true},
		{"unknown at plan", Config{Unknown: []string{"region"}}, nil, true},
		{"AWS_REGION", Config{}, map[string]string{"AWS_REGION": "eu-west-1"}, true},
		{"AWS_DEFAULT_REGION", Config{}, map[string]string{"AWS_DEFAULT_REGION": "eu-west-1"}, true},
		{"AWS_PROFILE", Config{}, map[string]string{"AWS_PROFILE": "dev"}, true},
		{"AWS_ENDPOINT_URL_EC2", Config{}, map[string]string{"AWS_ENDPOINT_URL_EC2": "http://127.0.0.1:1"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			if got := NewClients(c.cfg).Configured(); got != c.want {
				t.Fatalf("Configured() = %v, want %v", got, c.want)
			}
		})
	}
}
