/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_ROUND_CANDIDATES_H
#define NS3_ALLREDUCE_DRL_ROUND_CANDIDATES_H

#include "drl-tree-catalogue.h"

#include "ns3/scheduler-state.h"

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-learning
 * The lower level's choices in one round of the DRL environment: the candidates (the ready
 * workloads of the flow trees the upper level selected, tree by tree, each tree's in id
 * order), which of them can be picked now (the mask), and, to mask again only what a pick can
 * block, the candidates per directed link and per tree.
 */
class DrlRoundCandidates
{
  public:
    /// A candidate: (candidate set, workload id).
    using Candidate = std::pair<uint32_t, uint32_t>;
    /// Whether workload id of a set cannot be picked now: (set, id) -> true when blocked.
    using ConflictTest = std::function<bool(uint32_t, uint32_t)>;

    /// \param catalogue the trees (it must outlive this)
    explicit DrlRoundCandidates(const DrlTreeCatalogue& catalogue);

    /// No candidates (between rounds).
    void Clear();

    /**
     * Lists this round's candidates and masks them.
     * \param state the state acted on
     * \param selected per tree, 1 when the upper level selected it
     * \param listedRoots per root, 1 when its workloads are listed (symmetric decoding: the
     *        representatives); empty: every root's
     * \param conflicts tells the candidates that cannot be picked
     */
    void List(const SchedulerState& state,
              const std::vector<uint8_t>& selected,
              const std::vector<uint8_t>& listedRoots,
              const ConflictTest& conflicts);

    /**
     * Marks a candidate picked (its workloads started in the state) and masks those it
     * blocks now: the ones sharing a directed link with it, and those of its root's other
     * trees (a pick commits its root).
     * \param index a candidate whose mask is 1
     * \param state the state acted on
     * \param rescanAll check every candidate again (a pick may block candidates that share no
     *        link with it: aggregation slots, orbits)
     * \param conflicts tells the candidates that cannot be picked
     */
    void Take(uint32_t index,
              const SchedulerState& state,
              bool rescanAll,
              const ConflictTest& conflicts);

    /// \return the candidates of this round
    const std::vector<Candidate>& Get() const
    {
        return m_candidates;
    }

    /// \return per candidate, 1 when it can be picked now
    const std::vector<uint8_t>& GetMask() const
    {
        return m_mask;
    }

    /// \return the number of candidates whose mask is 1
    uint32_t GetNPickable() const
    {
        return m_pickable;
    }

    /// \return per directed link, the candidates whose mask is 1 that use it (kept up to date
    ///         pick by pick)
    const std::vector<uint32_t>& GetLinkUsers() const
    {
        return m_linkUsers;
    }

    /// \param t a tree \return its candidates at the start of the round (0 when not selected)
    uint32_t GetNReady(uint32_t t) const
    {
        return m_treeReady[t];
    }

  private:
    /// Masks the candidates that conflict and indexes them by directed link.
    /// \param state the state acted on \param conflicts the test
    void MaskAndIndex(const SchedulerState& state, const ConflictTest& conflicts);
    /// Masks candidate c when it is pickable and conflicts now.
    /// \param c a candidate \param conflicts the test
    void Recheck(uint32_t c, const ConflictTest& conflicts);
    /// Masks candidate c, which was pickable. \param c it
    void Unmask(uint32_t c);

    const DrlTreeCatalogue* m_catalogue;                 //!< the trees
    std::vector<Candidate> m_candidates;                 //!< (set, id) this round
    std::vector<uint8_t> m_mask;                         //!< per candidate
    uint32_t m_pickable{0};                              //!< candidates whose mask is 1
    std::vector<std::vector<uint32_t>> m_linkCandidates; //!< per directed link, the candidates
                                                         //!< of this round that use it
    std::vector<std::pair<uint32_t, uint32_t>> m_treeCandidates; //!< per tree, its candidates
                                                                 //!< [first, last) this round
    std::vector<uint32_t> m_treeReady; //!< per selected tree, ready at the start
    std::vector<uint32_t> m_linkFirst; //!< per candidate, its first entry in m_links (and one
                                       //!< more)
    std::vector<uint32_t> m_links;     //!< the candidates' directed links, one after the other
    std::vector<uint32_t> m_linkUsers; //!< per directed link, pickable candidates using it
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_ROUND_CANDIDATES_H */
