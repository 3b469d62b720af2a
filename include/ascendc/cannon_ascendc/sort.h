/**
 * @file cannon_ascendc/sort.h
 * The sort instructions: Sort32 (each repeat sorts 32 scores with their uint32_t indices) and
 * MrgSort (merges up to four sorted lists), on half and float scores.
 *
 * Both work on region proposals of 8 bytes: the score (a half score is followed by 2 zero bytes)
 * at byte 0 and its uint32_t index at byte 4, so a repeat of Sort32 writes 256 bytes (64 float
 * or 128 half elements of dst). Order: descending score; equal scores keep their input order
 * (the smaller index of Sort32's input, the earlier list of MrgSort, first); a NaN score sorts
 * above every number.
 */
#ifndef CANNON_ASCENDC_SORT_H_
#define CANNON_ASCENDC_SORT_H_

#include <cmath>
#include <cstring>
#include <vector>

#include "cannon_ascendc/core.h"

namespace AscendC {

namespace cannon_detail {
/** One region proposal: score widened to float, and its index. */
struct Proposal {
    float score;
    uint32_t index;
};

template <typename T>
inline constexpr bool SortType()
{
    return std::is_same<T, half>::value || std::is_same<T, float>::value;
}

/* a sorts strictly before b: a larger score, NaN above everything. */
inline bool ScoreBefore(float a, float b)
{
    if (std::isnan(a))
        return !std::isnan(b);
    if (std::isnan(b))
        return false;
    return a > b;
}

template <typename T>
inline Proposal LoadProposal(const uint8_t *p)
{
    Proposal r;
    T s;
    std::memcpy(&s, p, sizeof(T));
    r.score = static_cast<float>(s);
    std::memcpy(&r.index, p + 4, 4);
    return r;
}

template <typename T>
inline void StoreProposal(uint8_t *p, const Proposal &v)
{
    std::memset(p, 0, 8);
    const T s = static_cast<T>(v.score);
    std::memcpy(p, &s, sizeof(T));
    std::memcpy(p + 4, &v.index, 4);
}
}  // namespace cannon_detail

/** Sorts repeatTime groups of 32 scores of src0 (group r at element 32 r) with the indices of
 *  src1 (the same 32 indices for every group: src1 is read from its start each repeat, as the
 *  samples pass one index tensor) into 32 proposals per group, descending. */
template <typename T>
inline void Sort32(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<uint32_t> &src1,
                   const int32_t repeatTime CANNON_ASCENDC_LOC)
{
    static_assert(cannon_detail::SortType<T>(), "Sort32: scores are half or float");
    CANNON_ASCENDC_CHECK_IF(repeatTime < 0 || repeatTime > 255, "Sort32: repeatTime %d is not in [0, 255]",
                            repeatTime);
    constexpr uint32_t kPerProposal = 8 / sizeof(T);
    for (int32_t r = 0; r < repeatTime; r++) {
#if CANNON_ASCENDC_CHECK
        src0.Check(static_cast<uint64_t>(r) * 32, 32, loc_);
        src1.Check(0, 32, loc_);
        dst.Check(static_cast<uint64_t>(r) * 32 * kPerProposal, 32 * kPerProposal, loc_);
#endif
        cannon_detail::Proposal v[32];
        const T *s = src0.GetPhyAddr() + static_cast<uint64_t>(r) * 32;
        const uint32_t *ix = src1.GetPhyAddr();
        /* Insertion sort: stable, and well defined whatever the scores (NaN included). */
        for (uint32_t i = 0; i < 32; i++) {
            cannon_detail::Proposal x{static_cast<float>(s[i]), ix[i]};
            uint32_t j = i;
            while (j > 0 && cannon_detail::ScoreBefore(x.score, v[j - 1].score)) {
                v[j] = v[j - 1];
                j--;
            }
            v[j] = x;
        }
        uint8_t *d = reinterpret_cast<uint8_t *>(dst.GetPhyAddr() + static_cast<uint64_t>(r) * 32 * kPerProposal);
        for (uint32_t i = 0; i < 32; i++)
            cannon_detail::StoreProposal<T>(d + 8 * i, v[i]);
    }
}

/** The (up to) four sorted proposal lists MrgSort merges. */
template <typename T>
struct MrgSortSrcList {
    MrgSortSrcList() {}
    MrgSortSrcList(const LocalTensor<T> &src1In, const LocalTensor<T> &src2In, const LocalTensor<T> &src3In,
                   const LocalTensor<T> &src4In)
        : src1(src1In), src2(src2In), src3(src3In), src4(src4In)
    {}
    LocalTensor<T> src1;
    LocalTensor<T> src2;
    LocalTensor<T> src3;
    LocalTensor<T> src4;
};

/**
 * Merges the lists validBit names (bit i: list i + 1; 0b11, 0b111 or 0b1111) of
 * elementCountList[i] proposals each into dst, descending; sortedNum[i] receives how many
 * proposals of list i were merged (all of them). Repeat r (repeatTime > 1 needs four lists of
 * equal length, back to back) merges the lists r * (sum of the counts) proposals further on.
 */
template <typename T, bool isExhaustedSuspension = false>
inline void MrgSort(const LocalTensor<T> &dst, const MrgSortSrcList<T> &sortList, const uint16_t elementCountList[4],
                    uint32_t sortedNum[4], uint16_t validBit, const int32_t repeatTime CANNON_ASCENDC_LOC)
{
    static_assert(cannon_detail::SortType<T>(), "MrgSort: scores are half or float");
    CANNON_ASCENDC_CHECK_IF(validBit != 3 && validBit != 7 && validBit != 15,
                            "MrgSort: validBit %u is not 0b11, 0b111 or 0b1111", validBit);
    CANNON_ASCENDC_CHECK_IF(repeatTime < 1 || repeatTime > 255, "MrgSort: repeatTime %d is not in [1, 255]",
                            repeatTime);
    CANNON_ASCENDC_CHECK_IF(repeatTime > 1 && validBit != 15, "MrgSort: repeats need all four lists");
    constexpr uint32_t kPerProposal = 8 / sizeof(T);
    const LocalTensor<T> *lists[4] = {&sortList.src1, &sortList.src2, &sortList.src3, &sortList.src4};
    uint32_t nl = 0;
    uint64_t total = 0;
    for (uint32_t i = 0; i < 4; i++)
        if (validBit & (1u << i)) {
            nl = i + 1;
            total += elementCountList[i];
        }
    for (int32_t r = 0; r < repeatTime; r++) {
        const uint8_t *src[4] = {nullptr, nullptr, nullptr, nullptr};
        uint32_t pos[4] = {0, 0, 0, 0};
        for (uint32_t i = 0; i < nl; i++) {
            const uint64_t first = static_cast<uint64_t>(r) * total * kPerProposal;
#if CANNON_ASCENDC_CHECK
            lists[i]->Check(first, static_cast<uint64_t>(elementCountList[i]) * kPerProposal, loc_);
#endif
            src[i] = reinterpret_cast<const uint8_t *>(lists[i]->GetPhyAddr() + first);
        }
#if CANNON_ASCENDC_CHECK
        dst.Check(static_cast<uint64_t>(r) * total * kPerProposal, total * kPerProposal, loc_);
#endif
        uint8_t *d = reinterpret_cast<uint8_t *>(dst.GetPhyAddr() + static_cast<uint64_t>(r) * total * kPerProposal);
        /* Merged aside first: dst may overlap the sources. */
        std::vector<cannon_detail::Proposal> merged;
        merged.reserve(total);
        for (;;) {
            int best = -1;
            cannon_detail::Proposal bv{0.0f, 0};
            for (uint32_t i = 0; i < nl; i++) {
                if (pos[i] >= elementCountList[i])
                    continue;
                const cannon_detail::Proposal v = cannon_detail::LoadProposal<T>(src[i] + 8u * pos[i]);
                if (best < 0 || cannon_detail::ScoreBefore(v.score, bv.score)) {
                    best = static_cast<int>(i);
                    bv = v;
                }
            }
            if (best < 0)
                break;
            pos[best]++;
            merged.push_back(bv);
        }
        for (size_t k = 0; k < merged.size(); k++)
            cannon_detail::StoreProposal<T>(d + 8 * k, merged[k]);
        if (sortedNum)
            for (uint32_t i = 0; i < 4; i++)
                sortedNum[i] = i < nl && (validBit & (1u << i)) ? elementCountList[i] : 0;
    }
}

}  // namespace AscendC

#endif /* CANNON_ASCENDC_SORT_H_ */
