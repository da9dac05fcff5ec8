/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "allreduce-verification.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

AllReduceVerification
VerifyAllReduce(const std::vector<Ptr<AllReduceApplication>>& apps,
                uint32_t n,
                const GradientLayout& layout)
{
    AllReduceVerification v;
    const uint64_t p = layout.GetNValues();
    std::vector<double> sum(p, 0.0);
    std::vector<double> absSum(p, 0.0);
    // Distributed, only this rank's servers have an application: the others' gradients are
    // made again from the same seed and kind.
    Ptr<AllReduceApplication> any;
    for (uint32_t s = 0; s < n && !any; ++s)
    {
        any = apps[s];
    }
    if (!any)
    {
        v.verified = true;
        v.exact = true;
        v.message = "verified: true (no server here)";
        return v;
    }
    v.exact = true;
    for (uint32_t s = 0; s < n; ++s)
    {
        const std::vector<float> g =
            apps[s] ? apps[s]->MakeInitialGradient()
                    : MakeGradient(p, s, any->GetSeed(), any->GetValues());
        v.exact = v.exact && (apps[s] ? apps[s] : any)->GetValues() == GRADIENT_INTEGER;
        for (uint64_t i = 0; i < p; ++i)
        {
            sum[i] += g[i];
            absSum[i] += std::fabs(g[i]);
        }
    }
    // Integer inputs up to 64 in magnitude sum exactly in float32 below 2^24 / 64 servers.
    v.exact = v.exact && n * 64.0 < double(1 << 24);
    // Float inputs: any order of N−1 float32 additions errs by at most (N−1)·2^-24·Σ|v|; allow 2×.
    const double unit = n > 1 ? (n - 1) * std::ldexp(1.0, -23) : 0.0;
    v.verified = true;
    for (uint32_t s = 0; s < n; ++s)
    {
        if (!apps[s])
        {
            continue;
        }
        ++v.checked;
        const std::vector<float>& x = apps[s]->GetVector();
        for (uint64_t i = 0; i < p; ++i)
        {
            const double err = std::fabs(double(x[i]) - sum[i]);
            v.maxError = std::max(v.maxError, err);
            const bool ok = v.exact ? err == 0.0 : err <= unit * absSum[i];
            if (!ok && v.verified)
            {
                v.verified = false;
                v.server = s;
                v.index = i;
                v.expected = sum[i];
                v.got = x[i];
            }
        }
    }
    std::ostringstream os;
    if (v.verified)
    {
        os << "verified: true (" << v.checked
           << (v.checked == n ? "" : " of " + std::to_string(n)) << " servers x " << p
           << " values, "
           << (v.exact ? "exact" : "within (N-1)*2^-23*sum|v|") << ")";
    }
    else
    {
        os << "verified: false: server " << v.server << " index " << v.index << " holds "
           << v.got << ", the sum is " << v.expected;
    }
    v.message = os.str();
    return v;
}

} // namespace ns3
