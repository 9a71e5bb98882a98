// Checks made before any S3 request, so that a name that can never work is a usage error
// (exit 2) at once instead of a minute of retries: the bucket name against S3's naming rules,
// and the endpoint URL's form (an explicit http:// or https://).
#pragma once

#include <string_view>

#include "base/status.h"

namespace lakedump {

// InvalidArgument (one line, naming the rule) unless `bucket` follows the general purpose
// bucket naming rules of S3: 3-63 characters of lower-case letters, digits, '.' and '-',
// beginning and ending with a letter or digit, no "..", not an IPv4 address, none of the
// reserved prefixes (xn--, sthree-, amzn-s3-demo-) or suffixes of other resource kinds
// (--x-s3 directory buckets, --table-s3 table buckets, .mrap Multi-Region Access Points).
// Access point aliases (-s3alias, --ol-s3) are accepted: S3 takes them wherever a bucket
// name goes.
Status CheckBucketName(std::string_view bucket);

// InvalidArgument unless `endpoint` is "" (AWS) or an http:// or https:// URL with a host.
// `from` names where it came from ("--endpoint", "AWS_ENDPOINT_URL"...), for the message.
Status CheckEndpointUrl(std::string_view endpoint, std::string_view from);

}  // namespace lakedump
