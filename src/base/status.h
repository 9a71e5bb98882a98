// Status and Result<T> live in the public header; internal code includes this.
#pragma once
#include "lakedump/status.h"
