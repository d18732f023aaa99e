package awsemu

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/internal/shape"
)

// The Price List Query API (pricing:GetProducts, awsJson1_1, target
// AWSPriceListService.GetProducts) and EC2's DescribeSpotPriceHistory, from
// the fixtures' PriceList and SpotPriceHistory. Without them (nil) neither
// is served: both answer NotServedCode, which a caller reads as "this
// endpoint has no prices", as DescribeSubnets without subnets.json.

const pricingContentType = "application/x-amz-json-1.1"

// product is one PriceList entry with the attributes filters match.
type product struct {
	raw   string
	attrs map[string]string // lower-cased attribute name -> value
}

func indexProducts(list []string) ([]product, error) {
	if list == nil {
		return nil, nil
	}
	out := make([]product, 0, len(list))
	for i, raw := range list {
		var doc struct {
			Product struct {
				ProductFamily string
				Attributes    map[string]string
			}
			ServiceCode string
		}
		if err := json.Unmarshal([]byte(raw), &doc); err != nil {
			return nil, fmt.Errorf("PriceList[%d]: %w", i, err)
		}
		p := product{raw: raw, attrs: map[string]string{}}
		for k, v := range doc.Product.Attributes {
			p.attrs[strings.ToLower(k)] = v
		}
		p.attrs["productfamily"] = doc.Product.ProductFamily
		if doc.ServiceCode != "" {
			p.attrs["servicecode"] = doc.ServiceCode
		}
		out = append(out, p)
	}
	return out, nil
}

// parsePricing binds an awsJson1_1 request of the Price List Query API.
func (s *Server) parsePricing(w http.ResponseWriter, r *http.Request) (call, bool) {
	requestID := s.requestID()
	action := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AWSPriceListService.")
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "SerializationException", err.Error(), requestID, pricingContentType, nil)
		return call{}, false
	}
	fail := func(w http.ResponseWriter, e *apiError) {
		writeJSONError(w, e.status, e.code, e.message, requestID, pricingContentType, nil)
	}
	c := call{service: "pricing", action: action, fail: fail,
		throttled: func(w http.ResponseWriter) { fail(w, badRequest("ThrottlingException", "Rate exceeded")) }}
	c.serve = func(w http.ResponseWriter) {
		if action != "GetProducts" {
			fail(w, badRequest("UnknownOperationException", "Operation "+action+" is not supported by awsemu"))
			return
		}
		out, e := s.getProducts(body)
		if e != nil {
			fail(w, e)
			return
		}
		writeBody(w, http.StatusOK, pricingContentType, requestID, out)
	}
	return c, true
}

// getProducts: ServiceCode, Filters (TERM_MATCH and EQUALS compare the
// whole value, CONTAINS a part, ANY_OF and NONE_OF a comma-separated list;
// field names match without regard to case), MaxResults 1..100 (default
// 100), NextToken.
func (s *Server) getProducts(body []byte) ([]byte, *apiError) {
	if s.productsErr != nil {
		return nil, &apiError{status: http.StatusInternalServerError, code: "InternalError", message: "awsemu: " + s.productsErr.Error()}
	}
	if s.products == nil {
		return nil, badRequest(NotServedCode, "awsemu: the fixture set has no "+PricingProductsFile+", so pricing:GetProducts is not served")
	}
	var in struct {
		ServiceCode string
		Filters     []struct{ Type, Field, Value string }
		MaxResults  *int
		NextToken   string
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, badRequest("SerializationException", err.Error())
	}
	size := 100
	if in.MaxResults != nil {
		if *in.MaxResults < 1 || *in.MaxResults > 100 {
			return nil, badRequest("ValidationException", fmt.Sprintf("1 validation error detected: Value '%d' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 100", *in.MaxResults))
		}
		size = *in.MaxResults
	}
	var matched []string
	for _, p := range s.products {
		if in.ServiceCode != "" && p.attrs["servicecode"] != "" && p.attrs["servicecode"] != in.ServiceCode {
			continue
		}
		ok := true
		for _, f := range in.Filters {
			v, has := p.attrs[strings.ToLower(f.Field)]
			switch f.Type {
			case "TERM_MATCH", "EQUALS":
				ok = ok && has && v == f.Value
			case "CONTAINS":
				ok = ok && has && strings.Contains(v, f.Value)
			case "ANY_OF":
				ok = ok && has && slices.Contains(strings.Split(f.Value, ","), v)
			case "NONE_OF":
				ok = ok && (!has || !slices.Contains(strings.Split(f.Value, ","), v))
			default:
				return nil, badRequest("ValidationException", "1 validation error detected: Value '"+f.Type+"' at 'filters.type' failed to satisfy constraint: "+
					"Member must satisfy enum value set: [EQUALS, CONTAINS, ANY_OF, NONE_OF, TERM_MATCH]")
			}
		}
		if ok {
			matched = append(matched, p.raw)
		}
	}
	start := 0
	if in.NextToken != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(in.NextToken, "awsemu-pricing-"))
		if err != nil || n < 0 || n > len(matched) {
			return nil, badRequest("InvalidNextTokenException", "The next token is not valid")
		}
		start = n
	}
	end := min(start+size, len(matched))
	out := struct {
		FormatVersion string
		PriceList     []string
		NextToken     *string `json:",omitempty"`
	}{FormatVersion: "aws_v1", PriceList: append([]string{}, matched[start:end]...)}
	if end < len(matched) {
		t := "awsemu-pricing-" + strconv.Itoa(end)
		out.NextToken = &t
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, &apiError{status: http.StatusInternalServerError, code: "InternalError", message: err.Error()}
	}
	return b, nil
}

// describeSpotPriceHistory: InstanceType.N, ProductDescription.N,
// AvailabilityZone, StartTime, EndTime, MaxResults (default 1000, at most
// 10000), NextToken. As EC2 answers it, each instance type, zone and
// product gets the price in effect at StartTime and those set after it up
// to EndTime (default now), newest first; without StartTime, the whole
// history.
func (s *Server) describeSpotPriceHistory(form url.Values) (func(*bytes.Buffer), *apiError) {
	if s.spotPrices == nil {
		return nil, badRequest(NotServedCode, "awsemu: the fixture set has no "+SpotPriceHistoryFile+", so DescribeSpotPriceHistory is not served")
	}
	pr, err := parsePageRequest(form, 1, 10000)
	if err != nil {
		return nil, err
	}
	if form.Get("Filter.1.Name") != "" {
		return nil, badRequest("InvalidParameterValue", "awsemu: DescribeSpotPriceHistory filters are not emulated")
	}
	parseTime := func(key string) (time.Time, bool, *apiError) {
		v := form.Get(key)
		if v == "" {
			return time.Time{}, false, nil
		}
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return time.Time{}, false, badRequest("InvalidParameterValue", "Invalid value '"+v+"' for "+key)
		}
		return t, true, nil
	}
	start, hasStart, e := parseTime("StartTime")
	if e != nil {
		return nil, e
	}
	end, hasEnd, e := parseTime("EndTime")
	if e != nil {
		return nil, e
	}
	if !hasEnd {
		end = s.now()
	}
	types, products := indexedValues(form, "InstanceType"), indexedValues(form, "ProductDescription")
	zone := form.Get("AvailabilityZone")
	type group struct{ it, zone, product string }
	inEffect := map[group]int{} // the latest record at or before StartTime
	var matched []ec2types.SpotPrice
	for i, sp := range s.spotPrices {
		if len(types) > 0 && !slices.Contains(types, string(sp.InstanceType)) ||
			len(products) > 0 && !slices.Contains(products, string(sp.ProductDescription)) ||
			zone != "" && deref(sp.AvailabilityZone) != zone || sp.Timestamp == nil || sp.Timestamp.After(end) {
			continue
		}
		if !hasStart || sp.Timestamp.After(start) {
			matched = append(matched, sp)
			continue
		}
		g := group{string(sp.InstanceType), deref(sp.AvailabilityZone), string(sp.ProductDescription)}
		if j, ok := inEffect[g]; !ok || s.spotPrices[j].Timestamp.Before(*sp.Timestamp) {
			inEffect[g] = i
		}
	}
	for _, i := range inEffect {
		matched = append(matched, s.spotPrices[i])
	}
	slices.SortStableFunc(matched, func(a, b ec2types.SpotPrice) int {
		if c := b.Timestamp.Compare(*a.Timestamp); c != 0 {
			return c
		}
		return strings.Compare(string(a.InstanceType)+deref(a.AvailabilityZone)+string(a.ProductDescription),
			string(b.InstanceType)+deref(b.AvailabilityZone)+string(b.ProductDescription))
	})
	from, to, next, err := pr.page(len(matched), 1000)
	if err != nil {
		return nil, err
	}
	return func(b *bytes.Buffer) {
		shape.WriteEC2XML(b, "spotPriceHistorySet", matched[from:to])
		if next != "" {
			xmlElem(b, "nextToken", next)
		}
	}, nil
}
