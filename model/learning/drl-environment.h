/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_ENVIRONMENT_H
#define NS3_ALLREDUCE_DRL_ENVIRONMENT_H

#include "drl-candidate-observation.h"
#include "drl-load-tracker.h"
#include "drl-orbits.h"
#include "drl-round-candidates.h"
#include "drl-tree-catalogue.h"
#include "drl-tree-observation.h"

#include "ns3/allreduce-scheduler.h"
#include "ns3/balanced-scheduler.h"
#include "ns3/round-engine.h"
#include "ns3/scheduler-state.h"
#include "ns3/server-translations.h"
#include "ns3/workload.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-learning
 * The hierarchical DRL scheduler's world (doc/allreduce.rst, "The hierarchical DRL scheduler"),
 * without any learning in it: the state of an AllReduce on one or more candidate flow trees per
 * root, the two levels of decisions, their masks, observations and rewards.
 *
 * A round goes:
 *  1. the upper level (flow-tree selection) looks at GetTreeFeatures() and chooses a multi-hot
 *     vector over the trees with SelectTrees(); trees whose mask (GetTreeMask()) is 0 are
 *     ignored, choosing none of the selectable trees means choosing all of them, and a root
 *     none of whose trees is chosen gets one (no root is left out);
 *  2. the ready workloads of the chosen trees become the candidates (GetCandidates()); the lower
 *     level (workload scheduling) picks one at a time with Pick(), among those whose mask
 *     (GetCandidateMask()) is 1: not picked, no directed link in common with this round's
 *     picks, and of the root's committed tree;
 *  3. when no candidate is left (CanPick() is false), CloseRound() ends the round.
 *
 * With several candidate trees per root, a root is committed to a tree by the first workload
 * picked on it; its other trees are masked from then on. The episode ends when every root's
 * committed tree is done. GetPlan() gives the workloads on the chosen trees and the schedule.
 *
 * Observations are fixed-width per tree and per candidate (plus a global vector), so that one
 * network runs on any topology. Everything is deterministic: no randomness lives here.
 *
 * The environment keeps the episode (the roots' commitments, the rounds, the rewards) and
 * composes the rest: the trees it chooses among (DrlTreeCatalogue), the orbits of symmetric
 * decoding (DrlOrbits), what is left and its link loads (DrlLoadTracker), a round's candidates
 * (DrlRoundCandidates), and what each level sees (DrlTreeObservation,
 * DrlCandidateObservation).
 */
class DrlEnvironment
{
  public:
    /// Features per flow tree (upper level, DrlTreeObservation).
    static constexpr uint32_t TREE_FEATURES = DrlTreeObservation::FEATURES;
    /// Features per candidate workload (lower level, DrlCandidateObservation).
    static constexpr uint32_t CANDIDATE_FEATURES = DrlCandidateObservation::FEATURES;
    /// Global features, given to both levels.
    static constexpr uint32_t GLOBAL_FEATURES = 5;
    /**
     * Features are only ever appended, so that a policy trained on fewer reads the first ones
     * it knows. These are the widths before the observations carried aggregation in the
     * network (doc/allreduce.rst, "Aggregation in the network"): a policy of these widths is
     * blind to aggregating switches. The features after them are, per tree, the share of its
     * workloads that end at an aggregating switch and its workloads over the most of its
     * root's candidate trees; per candidate, whether it ends and whether it starts at an
     * aggregating switch, and its chunk piece's place in the order piece by piece, chunk by
     * chunk (where streams merge, taking chunks in one order keeps them flowing); globally,
     * the share of switches that aggregate. After those (AGGREGATION_TREE_FEATURES,
     * AGGREGATION_CANDIDATE_FEATURES) come the rounds a tree needs by itself: per tree, the
     * most of its reduce-scatter workloads left on one directed link, and the same of its
     * all-gather workloads (a link carries one workload a round, so a root whose link is
     * left for last finishes that many rounds late); per candidate, the most of its tree's
     * workloads of its phase left on one of its links, and its tree's two counts added; all
     * over the bandwidth bound.
     */
    static constexpr uint32_t BASIC_TREE_FEATURES = DrlTreeObservation::BASIC_FEATURES;
    /// See BASIC_TREE_FEATURES.
    static constexpr uint32_t BASIC_CANDIDATE_FEATURES = DrlCandidateObservation::BASIC_FEATURES;
    /// See BASIC_TREE_FEATURES.
    static constexpr uint32_t BASIC_GLOBAL_FEATURES = 4;
    /// The widths with aggregation, before the rounds a tree needs by itself (see
    /// BASIC_TREE_FEATURES).
    static constexpr uint32_t AGGREGATION_TREE_FEATURES = DrlTreeObservation::AGGREGATION_FEATURES;
    /// See AGGREGATION_TREE_FEATURES.
    static constexpr uint32_t AGGREGATION_CANDIDATE_FEATURES =
        DrlCandidateObservation::AGGREGATION_FEATURES;
    /// The smallest share of a link counted for its pressure (DrlLoadTracker::MIN_LINK_SHARE).
    static constexpr double MIN_LINK_SHARE = DrlLoadTracker::MIN_LINK_SHARE;

    /**
     * \param trees per candidate set, one flow tree per root (for example
     *        BuildCandidateTrees); a root's trees that come out equal in two
     *        sets stay two candidates, so that every tree belongs to one set
     * \param workloads per candidate set, its workloads (merge semantics on those trees; with
     *        aggregating switches, a root's candidates may differ in their numbers of
     *        workloads, as they merge at different switches)
     */
    DrlEnvironment(std::vector<std::vector<FlowTree>> trees, std::vector<WorkloadSet> workloads);

    /**
     * One candidate set of any workloads (any semantics): one "tree" per chunk.
     * \param workloads the workloads
     */
    explicit DrlEnvironment(WorkloadSet workloads);

    DrlEnvironment(const DrlEnvironment&) = delete;
    DrlEnvironment& operator=(const DrlEnvironment&) = delete;

    /// Back to the start (round 0, nothing sent, no root committed, or the state StartFrom
    /// made the start), acting on the environment's own RoundEngine.
    void Reset();

    /**
     * Makes a live state the start of every episode from now on (receding-horizon decoding,
     * doc/allreduce.rst, "Deciding live: follow the plan, search again"): what the state
     * finished, and what it has in flight, is sent in the rounds before (one round per run of
     * workloads that can share one, in the order they finished, then those in flight), and in
     * the first round to decide only the workloads the state lets start now (state.CanStart:
     * links in flight, down or held by others, late gradients) may be picked; from the round
     * after, the network is taken to be whole again. Reset, and so every search, then comes
     * back here. For an environment of one candidate set whose workloads the state runs.
     * \param state the live state
     * \return false, and nothing changed, when the state lets nothing start now (a search
     *         would have no first round)
     * \throws std::invalid_argument as Observe
     */
    bool StartFrom(const SchedulerState& state);
    /// \return the round the episodes start from (StartFrom's rounds before; 0 without it)
    uint32_t GetStartRound() const;
    /// \return the workloads sent before the start (StartFrom's; 0 without it), so that a
    ///         search counts only what it schedules itself
    uint32_t GetStartSent() const;

    /**
     * What an episode has done up to the end of a round, to come back to (Save, Restore):
     * copies of the state only, not of the topology, trees or workloads. Opaque.
     */
    struct Snapshot
    {
        std::unique_ptr<RoundEngine> engine;        //!< the engine's state
        DrlSlotTracker::Usage slots;                //!< m_slots' counts
        std::vector<uint32_t> committed;            //!< m_committed
        DrlLoadTracker loads;                       //!< m_loads
        std::vector<uint32_t> treeSentLast;         //!< m_treeSentLast
        std::vector<uint8_t> selectedLast;          //!< m_selectedLast
        std::vector<std::vector<uint32_t>> roundOf; //!< m_roundOf
        uint32_t selectedCount{0};                  //!< m_selectedCount
        uint32_t sent{0};                           //!< m_sent
        uint32_t rootsDone{0};                      //!< m_rootsDone
        uint32_t round{0};                          //!< m_round
    };

    /**
     * \return the episode's state between two rounds, for Restore (search at decode time)
     * \throws std::logic_error while a round is open or when acting on an observed state
     */
    Snapshot Save() const;

    /**
     * Back to a state Save gave (of this environment, or of a twin made the same way:
     * DrlEnvironmentPool), as if the episode had just closed that round: the same
     * observations, masks and decisions follow. It keeps reading its own workloads.
     * \param snapshot the state
     */
    void Restore(const Snapshot& snapshot);

    /**
     * Acts on a state from elsewhere from now on (a RoundEngine some other scheduler drove, the
     * packet-level controller): the observations and masks are computed from it, and Pick
     * starts workloads in it. The state closes its own rounds: call Observe again at the next
     * decision point instead of CloseRound. For an environment of one candidate set whose
     * workloads the state runs.
     * \param state the state (it must outlive the next decision)
     * \throws std::invalid_argument when the environment has several candidate sets or the
     *         state runs other workloads
     */
    void Observe(SchedulerState& state);

    /**
     * Symmetric decoding (doc/allreduce.rst, "Symmetric decoding"): from now on the decisions
     * are the representative roots' (root 0 alone where the group acts regularly), repeated by
     * every translation. The candidates are the representatives' ready workloads only; picking
     * one starts its whole orbit (its images under the group, one per root of the
     * representative's orbit), and it can be picked only when none of them conflicts; the trees
     * of a candidate set are selected for every root as for its representative. The schedule
     * stays a translated copy of the representatives', which halves nothing but the decisions:
     * the group's size times fewer of them.
     * \param translations the topology's translations
     * \throws std::invalid_argument when they are empty, the candidate sets are not copies by
     *         them (BuildSymmetricCandidateTrees), or an orbit's workloads share a directed link
     */
    void UseTranslations(const ServerTranslations& translations);
    /// \return true after UseTranslations
    bool IsSymmetric() const;

    /// \param t a tree \return its root (the chunk it carries)
    uint32_t GetTreeRoot(uint32_t t) const;
    /// \param set a candidate set \param id a workload of it \return its tree
    uint32_t GetTreeOf(uint32_t set, uint32_t id) const;
    /// \return the number of flow trees (roots x candidate sets)
    uint32_t GetNTrees() const;
    /// \return the number of workloads one complete run sends (the paper's TotalFlows; with
    ///         aggregating switches, the fewest over the roots' candidate trees)
    uint32_t GetNTotal() const;
    /// \return workloads sent so far
    uint32_t GetNSent() const;
    /// \return closed rounds so far
    uint32_t GetRound() const;
    /// \return true when every root's committed tree is done
    bool IsDone() const;
    /// \return the bandwidth lower bound on the rounds (least over the candidate sets)
    uint32_t GetBound() const;
    /**
     * \return a lower bound on the rounds still to come (0 when done): a chain of dependent
     *         workloads takes a round per workload, so every root needs at least the longest
     *         chain left on its committed tree (the shortest such over its candidates while it
     *         has none); and a directed link carries one workload a round, so at least as many
     *         rounds as the committed trees have workloads left on one link
     */
    uint32_t GetRoundsLeftBound() const;

    /// \return the number of candidate sets
    uint32_t GetNSets() const;
    /**
     * \param set a candidate set
     * \return per tree, 1 for the trees of that set (one per root)
     */
    std::vector<uint8_t> GetTreesOfSet(uint32_t set) const;

    /// \return the global features (GLOBAL_FEATURES): workloads sent (over all), roots done
    ///         (over all), rounds closed (over the bandwidth bound), picks this round (over the
    ///         servers), the share of switches that aggregate
    std::vector<float> GetGlobalFeatures() const;

    // --- upper level ---------------------------------------------------------------------------

    /// \return per tree, TREE_FEATURES values (row-major), for the round about to start
    std::vector<float> GetTreeFeatures() const;
    /// \return per tree, 1 when it can be selected: a ready workload that can start now (its
    ///         links free, a slot on its aggregating switches) and its root not committed to
    ///         another tree
    std::vector<uint8_t> GetTreeMask() const;
    /**
     * Starts a round with these trees selected. No root is left out: a root with a selectable
     * tree none of whose trees is selected gets the one of highest preference (left out while
     * the others go on, a root's tree ends alone, and with one server per switch all its
     * 2 (N-1) workloads cross its root's link, one a round). Selecting none at all selects
     * every selectable tree.
     * \param selected per tree, 0 or 1 (entries whose mask is 0 are ignored)
     * \param preference per tree, higher for the tree a root gets when none of its trees is
     *        selected (for example the upper network's logits); empty: the first of its trees
     * \return the number of trees selected in effect
     * \throws std::invalid_argument on a wrong size, or when the episode is done or a round is
     *         open
     */
    uint32_t SelectTrees(const std::vector<uint8_t>& selected,
                         const std::vector<float>& preference = {});

    // --- lower level ---------------------------------------------------------------------------

    /// \return the candidate workloads of this round: (candidate set, workload id)
    const std::vector<std::pair<uint32_t, uint32_t>>& GetCandidates() const;
    /// \return per candidate, 1 when Pick() accepts it now
    const std::vector<uint8_t>& GetCandidateMask() const;
    /// \return per candidate, CANDIDATE_FEATURES values (row-major)
    std::vector<float> GetCandidateFeatures() const;
    /**
     * \param which some candidates (indices into GetCandidates())
     * \return per candidate given, in that order, CANDIDATE_FEATURES values (row-major): the
     *         rows GetCandidateFeatures() has for them, at the cost of these only (and of a
     *         pass over the pickable candidates' links)
     */
    std::vector<float> GetCandidateFeatures(const std::vector<uint32_t>& which) const;
    /// \return true when some candidate can be picked
    bool CanPick() const;
    /// \return the number of candidates whose mask is 1
    uint32_t GetNPickable() const;
    /**
     * \param index a candidate whose mask is 1
     * \return the lower level's reward for it (LowerReward())
     * \throws std::invalid_argument when the mask forbids it
     */
    double Pick(uint32_t index);
    /**
     * Ends the round: the picks are done, their dependents may become ready.
     * \return the upper level's reward for the round (UpperReward())
     * \throws std::invalid_argument when nothing was picked
     */
    double CloseRound();

    /// \return the workloads on the chosen trees and their rounds (the episode must be done)
    Plan GetPlan() const;
    /// \return the workloads the last closed round sent, as ids of the environment's own
    ///         engine (every candidate set's workloads side by side); empty before the first
    const std::vector<uint32_t>& GetLastRound() const;

    /**
     * The paper's upper reward (its eqs. 3-4):
     * sent/total + 0.1 selected/trees, plus 10 when done, else - trees/total.
     * \param sent workloads sent in the round
     * \param total workloads of the whole AllReduce
     * \param selected trees selected in the round
     * \param trees trees in all
     * \param done whether the AllReduce finished with this round
     * \return the reward
     */
    static double UpperReward(uint32_t sent, uint32_t total, uint32_t selected, uint32_t trees,
                              bool done);
    /**
     * The paper's lower reward (its eq. 5): 1/total per workload sent.
     * \param total workloads of the whole AllReduce
     * \return the reward
     */
    static double LowerReward(uint32_t total);

    /**
     * The teacher used to warm-start the policies: the rules of the balanced scheduler.
     * \param rule the priority rule (height and link loads as the engine sees them now)
     * \return per candidate, 1 when the rule ranks it first (ties included), else 0
     */
    std::vector<uint8_t> TeacherTies(BalancedScheduler::Rule rule) const;

  private:
    /// Builds the engine and starts the first episode (Reset).
    void Init();
    /// Throws when Observe or StartFrom cannot act on the state. \param state the state
    /// \param caller the one asking, for the message
    void CheckObservable(const SchedulerState& state, const std::string& caller) const;
    /// The roots whose committed tree is done (m_rootsDone), counted afresh.
    void CountRootsDone();
    /**
     * The selection in effect (m_selected, m_selectedCount): the chosen trees the mask
     * allows, all of them when none, a tree for every root left out, and in symmetric
     * decoding every root's as its representative's.
     * \param selected per tree, 0 or 1 \param preference per tree, or empty
     * \param mask GetTreeMask()
     */
    void ApplySelection(const std::vector<uint8_t>& selected,
                        const std::vector<float>& preference,
                        const std::vector<uint8_t>& mask);
    /// Starts engine workload e of a set in the state acted on; it commits its root.
    /// \param set the candidate set \param e the workload's engine id
    void StartWorkload(uint32_t set, uint32_t e);
    /// \return true when workload id of a set cannot be picked now
    bool Conflicts(uint32_t set, uint32_t id) const;
    /// \return Conflicts as the round's candidates take it
    DrlRoundCandidates::ConflictTest MakeConflictTest() const;
    /// \return the workloads one decision starts (symmetric: the orbit's size, else 1)
    uint32_t DecisionSize() const;
    /// \param e an engine workload \return false when StartFrom's first round forbids it now
    bool IsAllowedNow(uint32_t e) const;
    /// Sends the given workloads, done or in flight in a live state, in rounds of their own
    /// (StartFrom). \param sent the workloads, in the order they finished
    void SendBefore(const std::vector<uint32_t>& sent);

    DrlTreeCatalogue m_catalogue;                   //!< the trees and workloads
    std::unique_ptr<RoundEngine> m_engine;          //!< runs the sets (offline episodes)
    SchedulerState* m_state{nullptr};               //!< the state acted on: m_engine or
                                                    //!< one given to Observe
    std::unique_ptr<DrlOrbits> m_orbits;            //!< symmetric decoding's (else null)
    std::vector<uint8_t> m_listedRoots; //!< symmetric: 1 for the representatives (else empty)
    DrlLoadTracker m_loads;                         //!< what is left, and its link loads
    DrlSlotTracker m_slots;                         //!< aggregating switches' slots in use
                                                    //!< (several sets: the engine's union
                                                    //!< has no limits)
    DrlRoundCandidates m_candidates;                //!< this round's candidates
    DrlTreeObservation m_treeObservation;           //!< what the upper level sees
    DrlCandidateObservation m_candidateObservation; //!< what the lower level sees
    bool m_rescanOnPick{false};                     //!< a pick may block candidates that
                                                    //!< share no link with it (aggregation
                                                    //!< slots, orbits): recheck every one

    // the episode
    std::vector<uint32_t> m_committed;            //!< per root, its tree or NO_INDEX
    std::vector<uint32_t> m_treeSentLast;         //!< per tree, sent in the last round
    std::vector<uint8_t> m_selectedLast;          //!< per tree, selected in the last round
    std::vector<uint8_t> m_selected;              //!< per tree, selected in this round
    std::vector<std::vector<uint32_t>> m_roundOf; //!< per set, per workload, its round
    uint32_t m_picked{0};                         //!< picks this round
    uint32_t m_selectedCount{0};                  //!< trees selected this round
    uint32_t m_sent{0};                           //!< workloads sent
    uint32_t m_rootsDone{0};                      //!< roots whose committed tree is done
    uint32_t m_round{0};                          //!< closed rounds
    bool m_open{false};                           //!< a round is open

    // the start (StartFrom)
    std::unique_ptr<Snapshot> m_start;  //!< where Reset goes back to (null: the beginning)
    std::vector<uint8_t> m_allowedNow;  //!< per engine workload, 1 when it may be picked in
                                        //!< the first round after m_start (empty: all)
};

/**
 * \ingroup allreduce-learning
 * Builds the environment the `drl` scheduler and the trainer use on a topology: merge
 * workloads on `treesPerRoot` candidate tree sets (BuildCandidateTrees). With aggregating
 * switches, as for the balanced scheduler: the trees toward them where only some aggregate
 * (AddAggregatorTrees), each tree set merging at every aggregating switch, at the racks' only
 * or at none (ChooseMergeChoices), so that the upper level chooses where streams meet.
 * Taught tree sets (the flat-tree search's, which a checkpoint may carry: DrlPolicy::
 * GetTaughtTrees) take the candidate sets' place.
 * \param topology the topology
 * \param treesPerRoot candidate trees per root
 * \param treeSeed their seed
 * \param pieces pieces per chunk
 * \param taught tree sets, one flow tree per root each, in place of the candidate sets
 *        (none: the candidate sets)
 * \return the environment
 * \throws std::invalid_argument when taught sets are given on a topology with aggregating
 *         switches (they are never taught there)
 */
std::unique_ptr<DrlEnvironment> MakeDrlEnvironment(
    const Topology& topology,
    uint32_t treesPerRoot,
    uint32_t treeSeed,
    uint32_t pieces,
    const std::vector<std::vector<FlowTree>>& taught = {});

/**
 * \ingroup allreduce-learning
 * The environment of symmetric decoding (doc/allreduce.rst, "Symmetric decoding"): merge
 * workloads on `treesPerRoot` candidate tree sets that the topology's translations copy
 * (BuildSymmetricCandidateTrees), the decisions the representative roots'
 * (DrlEnvironment::UseTranslations).
 * \param topology the topology (without aggregating switches)
 * \param translations its translations (ServerTranslations::Find; not empty)
 * \param treesPerRoot candidate trees per root
 * \param treeSeed their seed
 * \param pieces pieces per chunk
 * \return the environment
 * \throws std::invalid_argument when the translations are empty
 */
std::unique_ptr<DrlEnvironment> MakeSymmetricDrlEnvironment(const Topology& topology,
                                                            const ServerTranslations& translations,
                                                            uint32_t treesPerRoot,
                                                            uint32_t treeSeed,
                                                            uint32_t pieces);

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_ENVIRONMENT_H */
