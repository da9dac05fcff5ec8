/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-environment-pool.h"

#include "drl-threads.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>

namespace ns3
{

DrlEnvironmentPool::DrlEnvironmentPool(DrlEnvironment& env)
    : m_main(&env)
{
}

DrlEnvironmentPool::DrlEnvironmentPool(DrlEnvironment& env, Maker make, uint32_t threads)
    : m_main(&env),
      m_make(std::move(make))
{
    if (threads == 0)
    {
        threads = std::max(1u, std::thread::hardware_concurrency());
    }
    m_threads = m_make && IsDrlBlasThreadSafe() ? threads : 1;
    m_twins.resize(m_threads - 1);
}

uint32_t
DrlEnvironmentPool::GetThreads() const
{
    return m_threads;
}

uint32_t
DrlEnvironmentPool::Ready(size_t tasks)
{
    const auto workers =
        static_cast<uint32_t>(std::max<size_t>(1, std::min<size_t>(m_threads, tasks)));
    for (uint32_t w = 1; w < workers; ++w)
    {
        if (!m_twins[w - 1])
        {
            m_twins[w - 1] = m_make();
        }
    }
    return workers;
}

DrlEnvironment&
DrlEnvironmentPool::Get(uint32_t worker)
{
    if (worker == 0)
    {
        return *m_main;
    }
    if (worker >= m_threads || !m_twins[worker - 1])
    {
        throw std::logic_error("DrlEnvironmentPool: worker " + std::to_string(worker) +
                               " has no environment (call Ready first)");
    }
    return *m_twins[worker - 1];
}

} // namespace ns3
