/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_RANDOM_PLACEMENT_H
#define NS3_ALLREDUCE_RANDOM_PLACEMENT_H

#include "placement-policy.h"

#include <random>

namespace ns3
{

/**
 * \ingroup allreduce-cluster
 * `random`: free servers drawn uniformly (attribute Seed), in ascending order. The draws of one
 * policy object follow each other, so a run placing its jobs in the same order places them the
 * same way; the draws are the same with every standard library.
 */
class RandomPlacement : public PlacementPolicy
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    std::string GetName() const override;

  protected:
    std::vector<uint32_t> DoPlace(const Topology& cluster,
                                  const PlacementRequest& request) override;

  private:
    /// \param seed the Seed attribute: starts the draws again from it
    void SetSeed(uint64_t seed);
    /// \return the Seed attribute
    uint64_t GetSeed() const;

    uint64_t m_seed{1};       //!< Seed attribute
    std::mt19937_64 m_rng{1}; //!< the draws
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_RANDOM_PLACEMENT_H */
