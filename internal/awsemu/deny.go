package awsemu

import (
	"fmt"
	"net/http"
	"path"
	"strings"
)

// Services are the services the emulator answers, by their IAM action
// prefix.
var Services = []string{"ec2", "ssm", "eks", "sts", "iam", "pricing"}

// ParseDeny reads a -deny list: comma-separated IAM actions,
// "service:Action" (iam:GetRole) or a bare "Action" for every service that
// has it; `*` matches any run of characters (ec2:Describe*, iam:*). Actions
// are matched without regard to case, as IAM matches them.
func ParseDeny(list string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(list, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if service, action, ok := strings.Cut(a, ":"); ok {
			if !knownService(service) {
				return nil, fmt.Errorf("-deny %q: the emulator serves %s; write service:Action, e.g. iam:GetRole", a, strings.Join(Services, ", "))
			}
			if action == "" {
				return nil, fmt.Errorf("-deny %q: no action after the service; write e.g. %s:* or %s:Describe*", a, service, service)
			}
		}
		if _, err := path.Match(strings.ToLower(a), ""); err != nil {
			return nil, fmt.Errorf("-deny %q: %v", a, err)
		}
		out = append(out, a)
	}
	return out, nil
}

func knownService(s string) bool {
	for _, k := range Services {
		if strings.EqualFold(k, s) {
			return true
		}
	}
	return false
}

// denies reports whether Options.Deny covers the call.
func (s *Server) denies(c call) bool {
	action := strings.ToLower(c.action)
	full := strings.ToLower(c.service) + ":" + action
	for _, d := range s.opts.Deny {
		d = strings.ToLower(d)
		target := action
		if strings.Contains(d, ":") {
			target = full
		}
		if ok, _ := path.Match(d, target); ok {
			return true
		}
	}
	return false
}

// accessDenied is the error each service answers a caller whose policy does
// not allow the action, in its own code, status and wording: EC2's
// UnauthorizedOperation (403, "You are not authorized to perform this
// operation."), IAM's and STS's AccessDenied (403, awsQuery Sender error),
// SSM's and the Pricing API's AccessDeniedException (400, awsJson) and EKS's
// AccessDeniedException (403, restJson). The caller is the emulator's
// identity, arn:aws:iam::<account>:user/awsemu.
func (s *Server) accessDenied(c call) *apiError {
	action := c.service + ":" + c.action
	who := "User: arn:aws:iam::" + s.opts.AccountID + ":user/awsemu is not authorized to perform: " + action
	because := " because no identity-based policy allows the " + action + " action"
	switch c.service {
	case "ec2":
		return &apiError{status: http.StatusForbidden, code: "UnauthorizedOperation",
			message: "You are not authorized to perform this operation. " + who + because}
	case "ssm", "pricing":
		return &apiError{status: http.StatusBadRequest, code: "AccessDeniedException", message: who + because}
	case "eks":
		return &apiError{status: http.StatusForbidden, code: "AccessDeniedException", message: who + because}
	default: // iam, sts
		return &apiError{status: http.StatusForbidden, code: "AccessDenied", message: who + because}
	}
}
