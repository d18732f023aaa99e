package awsemu_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
)

// A denied action is answered as its service answers a caller whose policy
// does not allow it: the SDK's own deserializers read the code, the HTTP
// status and the message that names the permission. Actions not denied are
// served as usual, and the stats count the denied requests.
func TestDeniedActionsAnswerAsTheService(t *testing.T) {
	deny, err := awsemu.ParseDeny("ec2:DescribeSubnets, ssm:GetParameters,eks:DescribeCluster,iam:GetRole,sts:AssumeRole")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, nil, awsemu.Options{Deny: deny}, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		permission, code string
		status           int
		call             func() error
	}{
		{"ec2:DescribeSubnets", "UnauthorizedOperation", 403, func() error {
			_, err := e.EC2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{})
			return err
		}},
		{"ssm:GetParameters", "AccessDeniedException", 400, func() error {
			_, err := e.SSM.GetParameters(ctx, &ssm.GetParametersInput{Names: []string{al2023Recommended}})
			return err
		}},
		{"eks:DescribeCluster", "AccessDeniedException", 403, func() error {
			_, err := e.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("demo")})
			return err
		}},
		{"iam:GetRole", "AccessDenied", 403, func() error {
			_, err := e.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("KarpenterNodeRole-demo")})
			return err
		}},
		{"sts:AssumeRole", "AccessDenied", 403, func() error {
			_, err := e.STS.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::" + awsemu.AccountID + ":role/KarpenterNodeRole-demo"), RoleSessionName: aws.String("plan")})
			return err
		}},
	} {
		t.Run(tc.permission, func(t *testing.T) {
			err := tc.call()
			if code := apiCode(t, err); code != tc.code {
				t.Errorf("code %s, want %s", code, tc.code)
			}
			var re *awshttp.ResponseError
			if !errors.As(err, &re) || re.HTTPStatusCode() != tc.status {
				t.Errorf("HTTP status of %v, want %d", err, tc.status)
			}
			if want := "User: arn:aws:iam::" + awsemu.AccountID + ":user/awsemu is not authorized to perform: " + tc.permission; !strings.Contains(err.Error(), want) {
				t.Errorf("message of %v lacks %q", err, want)
			}
		})
	}
	if _, err := e.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{}); err != nil {
		t.Errorf("an action not denied failed: %v", err)
	}
	if _, err := e.IAM.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("KarpenterNodeInstanceProfile-demo")}); err != nil {
		t.Errorf("an action not denied failed: %v", err)
	}
	st := e.Srv.Stats()
	if st["denied"] != 5 || st["total"] != 7 || st["iam:GetRole"] != 1 {
		t.Errorf("stats %v, want 5 denied of 7, each counted under its action", st)
	}
}

// Patterns: `*` in the IAM form, a bare action for any service, any case.
func TestDenyPatterns(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		deny               string
		subnets, images    bool // denied?
		role, instanceProf bool
	}{
		{"ec2:Describe*", true, true, false, false},
		{"EC2:describesubnets", true, false, false, false},
		{"GetRole", false, false, true, false},
		{"iam:*", false, false, true, true},
		{"*", true, true, true, true},
		{"", false, false, false, false},
	} {
		t.Run(tc.deny, func(t *testing.T) {
			deny, err := awsemu.ParseDeny(tc.deny)
			if err != nil {
				t.Fatal(err)
			}
			e := newEnv(t, nil, awsemu.Options{Deny: deny}, nil)
			for name, c := range map[string]struct {
				want bool
				call func() error
			}{
				"subnets": {tc.subnets, func() error { _, err := e.EC2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{}); return err }},
				"images": {tc.images, func() error {
					_, err := e.EC2.DescribeImages(ctx, &ec2.DescribeImagesInput{Owners: []string{"self"}})
					return err
				}},
				"role": {tc.role, func() error {
					_, err := e.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("KarpenterNodeRole-demo")})
					return err
				}},
				"profile": {tc.instanceProf, func() error {
					_, err := e.IAM.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("KarpenterNodeInstanceProfile-demo")})
					return err
				}},
			} {
				err := c.call()
				if got := err != nil && strings.Contains(err.Error(), "not authorized to perform"); got != c.want {
					t.Errorf("%s: denied %v, want %v (%v)", name, got, c.want, err)
				}
			}
		})
	}
}

func TestParseDenyRejects(t *testing.T) {
	for in, want := range map[string]string{
		"s3:GetObject":  "the emulator serves ec2, ssm, eks, sts, iam",
		"iam:":          "no action after the service",
		"ec2:Describe[": "syntax error",
	} {
		if _, err := awsemu.ParseDeny(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDeny(%q) = %v, want an error mentioning %q", in, err, want)
		}
	}
}

// ParseDeny never panics, and what it accepts denies or serves any action
// without panicking either (a malformed pattern is refused when parsed, so
// matching cannot hit one); a denied EC2 action is UnauthorizedOperation.
func FuzzParseDeny(f *testing.F) {
	for _, s := range []string{"iam:GetRole,ec2:DescribeSubnets", "ec2:Describe*", "*", "GetRole", "iam:", "s3:x", "ec2:[", ",,", "ec2:\\"} {
		f.Add(s, "DescribeSubnets")
	}
	f.Fuzz(func(t *testing.T, list, action string) {
		deny, err := awsemu.ParseDeny(list)
		if err != nil {
			return
		}
		srv := awsemu.New(nil, awsemu.Options{Deny: deny})
		form := url.Values{"Action": {action}, "Version": {"2016-11-15"}}
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		denied := srv.Stats()["denied"] == 1
		if denied != (rec.Code == http.StatusForbidden) || denied && !strings.Contains(rec.Body.String(), "<Code>UnauthorizedOperation</Code>") {
			t.Fatalf("deny %q, action %q: HTTP %d, stats %v: %s", deny, action, rec.Code, srv.Stats(), rec.Body.String())
		}
	})
}
