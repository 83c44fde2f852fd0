#[allow(dead_code)]
fn residuals(p: &[f64], t: &[f64], y: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; t.len()];
    for i in 0..t.len() {
        r[i] = p[0] * (p[1] * t[i]).exp() - y[i];
    }
    r
}
#[doc(hidden)]
#[allow(non_upper_case_globals, dead_code)]
const __residuals_active: &[bool] = &[true, false, false];
#[doc(hidden)]
#[allow(
    arithmetic_overflow,
    unconditional_panic,
    dead_code,
    unused_variables,
    unused_mut,
    unused_parens,
    unused_assignments,
    unreachable_code,
    non_snake_case,
    clippy::all,
    clippy::pedantic
)]
fn residuals_hvp_adjoint<
    '__ad_a,
    __AdP0: ::autograd::__private::dual::ArrayArg<'__ad_a, &'__ad_a [f64]>,
    __AdP1: ::autograd::__private::dual::ArrayArg<'__ad_a, &'__ad_a [f64]>,
    __AdP2: ::autograd::__private::dual::ArrayArg<'__ad_a, &'__ad_a [f64]>,
>(
    p: __AdP0,
    t: __AdP1,
    y: __AdP2,
    d_out: &[::autograd::__private::Dual],
) -> Vec<::autograd::__private::Dual> {
    #[allow(clippy::all, clippy::pedantic)]
    fn __ad_value_of(p: &[f64], t: &[f64], y: &[f64]) -> Vec<f64> {
        let mut r = vec![0.0; t.len()];
        for i in 0..t.len() {
            r[i] = p[0] * (p[1] * t[i]).exp() - y[i];
        }
        r
    }
    #[doc(hidden)]
    #[allow(
        arithmetic_overflow,
        unconditional_panic,
        dead_code,
        unused_variables,
        unused_mut,
        unused_parens,
        unused_assignments,
        unreachable_code,
        non_snake_case,
        clippy::all,
        clippy::pedantic
    )]
    fn __ad_weighted_hvp_adjoint<
        '__ad_a,
        __AdP0: ::autograd::__private::dual::ArrayArg<'__ad_a, &'__ad_a [f64]>,
        __AdP1: ::autograd::__private::dual::ArrayArg<'__ad_a, &'__ad_a [f64]>,
        __AdP2: ::autograd::__private::dual::ArrayArg<'__ad_a, &'__ad_a [f64]>,
        __AdP3: ::autograd::__private::dual::ArrayArg<'__ad_a, &'__ad_a [f64]>,
    >(
        p: __AdP0,
        t: __AdP1,
        y: __AdP2,
        __ad_d: __AdP3,
        d_out: ::autograd::__private::Dual,
    ) -> ::autograd::__private::Dual {
        let (p, v_p, d_p, hv_p) = ::autograd::__private::dual::ArrayArg::split(p);
        let (t, _, _, _) = ::autograd::__private::dual::ArrayArg::split(t);
        let (y, _, _, _) = ::autograd::__private::dual::ArrayArg::split(y);
        let (__ad_d, v___ad_d, d___ad_d, hv___ad_d) = ::autograd::__private::dual::ArrayArg::split(
            __ad_d,
        );
        let mut r: ::std::vec::Vec<::autograd::__private::Dual> = ::std::vec![
            ::autograd::__private::Dual::from(0.0); t.len()
        ];
        if let (Some(__ad_row_r), Some(__ad_row_y)) = (
            ::autograd::__private::row_mut(&mut r[..], 0usize, t.len()),
            ::autograd::__private::row(&y[..], 0usize, t.len()),
        ) {
            let __ad_n: usize = ::core::cmp::min(__ad_row_r.len(), __ad_row_y.len());
            for i in 0..__ad_n {
                let __ad_t0: ::autograd::__private::Dual = {
                    let __ad_k_1: usize = 0;
                    ::autograd::__private::Dual::new(
                        p[__ad_k_1],
                        ::autograd::__private::dual::tangent(&v_p[..], __ad_k_1),
                    )
                };
                let __ad_t1: ::autograd::__private::Dual = {
                    let __ad_k_2: usize = 1;
                    ::autograd::__private::Dual::new(
                        p[__ad_k_2],
                        ::autograd::__private::dual::tangent(&v_p[..], __ad_k_2),
                    )
                };
                let __ad_t2: ::autograd::__private::Dual = __ad_t1 * (t[i]);
                let __ad_t3: ::autograd::__private::Dual = ::autograd::__private::Dual::exp(
                    ::autograd::__private::Dual::from(__ad_t2),
                );
                let __ad_t4: ::autograd::__private::Dual = __ad_t0 * __ad_t3;
                let __ad_t5: ::autograd::__private::Dual = __ad_t4 - (__ad_row_y[i]);
                __ad_row_r[i] = __ad_t5;
            }
        } else {
            for i in 0..t.len() {
                let __ad_t0: ::autograd::__private::Dual = {
                    let __ad_k_1: usize = 0;
                    ::autograd::__private::Dual::new(
                        p[__ad_k_1],
                        ::autograd::__private::dual::tangent(&v_p[..], __ad_k_1),
                    )
                };
                let __ad_t1: ::autograd::__private::Dual = {
                    let __ad_k_2: usize = 1;
                    ::autograd::__private::Dual::new(
                        p[__ad_k_2],
                        ::autograd::__private::dual::tangent(&v_p[..], __ad_k_2),
                    )
                };
                let __ad_t2: ::autograd::__private::Dual = __ad_t1 * (t[i]);
                let __ad_t3: ::autograd::__private::Dual = ::autograd::__private::Dual::exp(
                    ::autograd::__private::Dual::from(__ad_t2),
                );
                let __ad_t4: ::autograd::__private::Dual = __ad_t0 * __ad_t3;
                let __ad_t5: ::autograd::__private::Dual = __ad_t4 - (y[i]);
                r[i] = __ad_t5;
            }
        }
        let __ad_s: f64 = 0.0_f64;
        let mut __ad_cell___ad_s_6: ::autograd::__private::Dual = ::autograd::__private::Dual::from(
            __ad_s,
        );
        let __ad_seed_cell___ad_s_6: ::autograd::__private::Dual = ::autograd::__private::Dual::from(
            d_out,
        );
        let mut __ad_d_r = ::autograd::__private::zeros_like(&r);
        {
            let mut __ad_d_cell___ad_s_6: ::autograd::__private::Dual;
            if let (Some(__ad_row_d_r),) = (
                ::autograd::__private::row_mut(&mut __ad_d_r[..], 0usize, r.len()),
            ) {
                let __ad_n_1: usize = __ad_row_d_r.len();
                for __ad_k in 0..__ad_n_1 {
                    let __ad_s__1: ::autograd::__private::Dual = __ad_cell___ad_s_6;
                    let __ad_t7: ::autograd::__private::Dual = {
                        let __ad_k_3: usize = __ad_k;
                        ::autograd::__private::Dual::new(
                            __ad_d[__ad_k_3],
                            ::autograd::__private::dual::tangent(&v___ad_d[..], __ad_k_3),
                        )
                    };
                    let __ad_t8: ::autograd::__private::Dual = r[__ad_k];
                    let __ad_t9: ::autograd::__private::Dual = __ad_t7 * __ad_t8;
                    let __ad_s__2: ::autograd::__private::Dual = __ad_s__1 + __ad_t9;
                    __ad_cell___ad_s_6 = __ad_s__2;
                    __ad_d_cell___ad_s_6 = __ad_seed_cell___ad_s_6;
                    let mut __ad_d_s__2: ::autograd::__private::Dual = __ad_d_cell___ad_s_6;
                    __ad_d_cell___ad_s_6 = ::autograd::__private::Dual::constant(0.0);
                    let __ad_p_s__2 = ::autograd::__private::dual::constant_partials::add(
                        __ad_s__1,
                        __ad_t9,
                        __ad_s__2,
                    );
                    let mut __ad_d_s__1: ::autograd::__private::Dual = __ad_d_s__2
                        * __ad_p_s__2.0;
                    let mut __ad_d_t9: ::autograd::__private::Dual = __ad_d_s__2
                        * __ad_p_s__2.1;
                    let __ad_p_t9 = ::autograd::__private::dual::rules::mul(
                        __ad_t7,
                        __ad_t8,
                        __ad_t9,
                    );
                    let mut __ad_d_t7: ::autograd::__private::Dual = __ad_d_t9
                        * __ad_p_t9.0;
                    let mut __ad_d_t8: ::autograd::__private::Dual = __ad_d_t9
                        * __ad_p_t9.1;
                    __ad_row_d_r[__ad_k] += __ad_d_t8;
                    let __ad_i: usize = __ad_k;
                    ::autograd::__private::dual::accumulate(
                        &mut d___ad_d[..],
                        &mut hv___ad_d[..],
                        __ad_i,
                        __ad_d_t7,
                    );
                    __ad_d_cell___ad_s_6 += __ad_d_s__1;
                }
            } else {
                for __ad_k in 0..r.len() {
                    let __ad_s__1: ::autograd::__private::Dual = __ad_cell___ad_s_6;
                    let __ad_t7: ::autograd::__private::Dual = {
                        let __ad_k_3: usize = __ad_k;
                        ::autograd::__private::Dual::new(
                            __ad_d[__ad_k_3],
                            ::autograd::__private::dual::tangent(&v___ad_d[..], __ad_k_3),
                        )
                    };
                    let __ad_t8: ::autograd::__private::Dual = r[__ad_k];
                    let __ad_t9: ::autograd::__private::Dual = __ad_t7 * __ad_t8;
                    let __ad_s__2: ::autograd::__private::Dual = __ad_s__1 + __ad_t9;
                    __ad_cell___ad_s_6 = __ad_s__2;
                    __ad_d_cell___ad_s_6 = __ad_seed_cell___ad_s_6;
                    let mut __ad_d_s__2: ::autograd::__private::Dual = __ad_d_cell___ad_s_6;
                    __ad_d_cell___ad_s_6 = ::autograd::__private::Dual::constant(0.0);
                    let __ad_p_s__2 = ::autograd::__private::dual::constant_partials::add(
                        __ad_s__1,
                        __ad_t9,
                        __ad_s__2,
                    );
                    let mut __ad_d_s__1: ::autograd::__private::Dual = __ad_d_s__2
                        * __ad_p_s__2.0;
                    let mut __ad_d_t9: ::autograd::__private::Dual = __ad_d_s__2
                        * __ad_p_s__2.1;
                    let __ad_p_t9 = ::autograd::__private::dual::rules::mul(
                        __ad_t7,
                        __ad_t8,
                        __ad_t9,
                    );
                    let mut __ad_d_t7: ::autograd::__private::Dual = __ad_d_t9
                        * __ad_p_t9.0;
                    let mut __ad_d_t8: ::autograd::__private::Dual = __ad_d_t9
                        * __ad_p_t9.1;
                    __ad_d_r[__ad_k] += __ad_d_t8;
                    let __ad_i: usize = __ad_k;
                    ::autograd::__private::dual::accumulate(
                        &mut d___ad_d[..],
                        &mut hv___ad_d[..],
                        __ad_i,
                        __ad_d_t7,
                    );
                    __ad_d_cell___ad_s_6 += __ad_d_s__1;
                }
            }
        }
        let __ad_s__3: ::autograd::__private::Dual = __ad_cell___ad_s_6;
        let mut __ad_d_s__3: ::autograd::__private::Dual = d_out;
        let mut __ad_d_cell___ad_s_6: ::autograd::__private::Dual = ::autograd::__private::Dual::constant(
            0.0,
        );
        __ad_d_cell___ad_s_6 += __ad_d_s__3;
        for i in (0..t.len()).rev() {
            let __ad_t0: ::autograd::__private::Dual = {
                let __ad_k_4: usize = 0;
                ::autograd::__private::Dual::new(
                    p[__ad_k_4],
                    ::autograd::__private::dual::tangent(&v_p[..], __ad_k_4),
                )
            };
            let __ad_t1: ::autograd::__private::Dual = {
                let __ad_k_5: usize = 1;
                ::autograd::__private::Dual::new(
                    p[__ad_k_5],
                    ::autograd::__private::dual::tangent(&v_p[..], __ad_k_5),
                )
            };
            let __ad_t2: ::autograd::__private::Dual = __ad_t1 * (t[i]);
            let __ad_t3: ::autograd::__private::Dual = ::autograd::__private::Dual::exp(
                ::autograd::__private::Dual::from(__ad_t2),
            );
            let __ad_t4: ::autograd::__private::Dual = __ad_t0 * __ad_t3;
            let __ad_t5: ::autograd::__private::Dual = __ad_t4 - (y[i]);
            r[i] = __ad_t5;
            let __ad_i_1: usize = i;
            let mut __ad_d_t5: ::autograd::__private::Dual = __ad_d_r[__ad_i_1];
            __ad_d_r[__ad_i_1] = ::autograd::__private::Dual::constant(0.0);
            let mut __ad_d_t4: ::autograd::__private::Dual = __ad_d_t5
                * ::autograd::__private::dual::constant_partials::sub(
                        __ad_t4,
                        (y[i]),
                        __ad_t5,
                    )
                    .0;
            let __ad_p_t4 = ::autograd::__private::dual::rules::mul(
                __ad_t0,
                __ad_t3,
                __ad_t4,
            );
            let mut __ad_d_t0: ::autograd::__private::Dual = __ad_d_t4 * __ad_p_t4.0;
            let mut __ad_d_t3: ::autograd::__private::Dual = __ad_d_t4 * __ad_p_t4.1;
            let mut __ad_d_t2: ::autograd::__private::Dual = __ad_d_t3
                * ::autograd::__private::dual::rules::exp(__ad_t2, __ad_t3);
            let mut __ad_d_t1: ::autograd::__private::Dual = __ad_d_t2
                * ::autograd::__private::dual::constant_partials::mul(
                        __ad_t1,
                        (t[i]),
                        __ad_t2,
                    )
                    .0;
            let __ad_i_2: usize = 1;
            ::autograd::__private::dual::accumulate(
                &mut d_p[..],
                &mut hv_p[..],
                __ad_i_2,
                __ad_d_t1,
            );
            let __ad_i_3: usize = 0;
            ::autograd::__private::dual::accumulate(
                &mut d_p[..],
                &mut hv_p[..],
                __ad_i_3,
                __ad_d_t0,
            );
        }
        __ad_s__3
    }
    let (p, __ad_v_p, __ad_g_p, __ad_h_p) = ::autograd::__private::dual::ArrayArg::split(
        p,
    );
    let (t, _, _, _) = ::autograd::__private::dual::ArrayArg::split(t);
    let (y, _, _, _) = ::autograd::__private::dual::ArrayArg::split(y);
    let __ad_value_1 = __ad_value_of(p, t, y);
    let mut __ad_dv = ::autograd::__private::zeros_like(&__ad_value_1);
    let mut __ad_dt = ::autograd::__private::zeros_like(&__ad_value_1);
    if !d_out.is_empty() {
        ::autograd::__private::check_output_len(
            "residuals_hvp_adjoint",
            stringify!(d_out),
            d_out.len(),
            __ad_value_1.len(),
        );
        for __ad_k_1 in 0..d_out.len() {
            __ad_dv[__ad_k_1] = d_out[__ad_k_1].v;
            __ad_dt[__ad_k_1] = d_out[__ad_k_1].t;
        }
    }
    let mut __ad_gd = ::autograd::__private::zeros_like(&__ad_value_1);
    let mut __ad_hd = ::autograd::__private::zeros_like(&__ad_value_1);
    __ad_weighted_hvp_adjoint(
        (p, __ad_v_p, __ad_g_p, __ad_h_p),
        t,
        y,
        (&__ad_dv[..], &__ad_dt[..], &mut __ad_gd[..], &mut __ad_hd[..]),
        ::autograd::__private::Dual::constant(1.0),
    );
    ::autograd::__private::dual::zip_vec(&__ad_value_1[..], &__ad_hd[..])
}
///Vector-Jacobian product of `residuals`, generated by `#[differentiable]`: returns the value of `residuals` and adds `d_outᵀ · ∂residuals/∂p` into the `d_` argument of each of `p` (`d_out` has one entry per output; another length panics). One reverse sweep.
#[allow(
    arithmetic_overflow,
    unconditional_panic,
    dead_code,
    unused_variables,
    unused_mut,
    unused_parens,
    unused_assignments,
    unreachable_code,
    non_snake_case,
    clippy::all,
    clippy::pedantic
)]
fn residuals_adjoint(
    p: &[f64],
    t: &[f64],
    y: &[f64],
    d_out: &[f64],
    d_p: &mut [f64],
) -> Vec<f64> {
    /// Reverse-mode adjoint of `__ad_weighted`, generated by `#[differentiable]`: returns the value of `__ad_weighted` and adds `d_out` times its partial derivative with respect to each of `p` into the matching `d_` argument.
    #[allow(
        arithmetic_overflow,
        unconditional_panic,
        dead_code,
        unused_variables,
        unused_mut,
        unused_parens,
        unused_assignments,
        unreachable_code,
        non_snake_case,
        clippy::all,
        clippy::pedantic
    )]
    fn __ad_weighted_adjoint(
        p: &[f64],
        t: &[f64],
        y: &[f64],
        __ad_d: &[f64],
        __ad_value_slot: &mut ::core::option::Option<Vec<f64>>,
        d_out: f64,
        d_p: &mut [f64],
    ) -> f64 {
        ::autograd::__private::check_adjoint_len(
            "__ad_weighted_adjoint",
            "d_p",
            d_p.len(),
            "p",
            p.len(),
        );
        ::std::thread_local! {
            #[allow(non_upper_case_globals)] static __ad_home :
            ::autograd::__private::RecordsHome < f64, 1 > = const {
            ::autograd::__private::RecordsHome::new() };
        }
        let __ad_guard = ::autograd::__private::RecordsHome::take(&__ad_home);
        let mut __ad_record = __ad_guard.record(0);
        let mut __ad_own_r: ::std::vec::Vec<f64> = ::std::vec![0.0; t.len()];
        let r = &mut __ad_own_r[..];
        {
            let mut __ad_slots = __ad_record
                .slots(::autograd::__private::room(&(0..t.len()), 1usize));
            if let (Some(__ad_row_r), Some(__ad_row_y)) = (
                ::autograd::__private::row_mut(&mut r[..], 0usize, t.len()),
                ::autograd::__private::row(&y[..], 0usize, t.len()),
            ) {
                let __ad_n: usize = ::core::cmp::min(__ad_row_r.len(), __ad_row_y.len());
                for i in 0..__ad_n {
                    let __ad_t0 = p[0];
                    let __ad_t1 = p[1];
                    let __ad_t2 = __ad_t1 * (t[i]);
                    let __ad_t3 = __ad_t2.exp();
                    let __ad_t3 = __ad_slots.push(__ad_t3);
                    let __ad_t4 = __ad_t0 * __ad_t3;
                    let __ad_t5 = __ad_t4 - (__ad_row_y[i]);
                    __ad_row_r[i] = __ad_t5;
                }
            } else {
                for i in 0..t.len() {
                    let __ad_t0 = p[0];
                    let __ad_t1 = p[1];
                    let __ad_t2 = __ad_t1 * (t[i]);
                    let __ad_t3 = __ad_t2.exp();
                    let __ad_t3 = __ad_slots.push(__ad_t3);
                    let __ad_t4 = __ad_t0 * __ad_t3;
                    let __ad_t5 = __ad_t4 - (y[i]);
                    r[i] = __ad_t5;
                }
            }
        }
        let __ad_s: f64 = 0.0_f64;
        if __ad_value_slot.is_none() {
            ::autograd::__private::check_output_len(
                "residuals_adjoint",
                stringify!(d_out),
                __ad_d.len(),
                r.len(),
            );
            *__ad_value_slot = ::core::option::Option::Some(
                ::autograd::__private::spare_copy(&r[..]),
            );
        }
        let mut __ad_cell___ad_s_6 = __ad_s;
        let __ad_seed_cell___ad_s_6: f64 = d_out;
        let mut __ad_own_d_r = ::autograd::__private::zeros_like(&r);
        let __ad_d_r = &mut __ad_own_d_r[..];
        {
            let mut __ad_d_cell___ad_s_6: f64;
            if let (Some(__ad_row_d), Some(__ad_row_d_r)) = (
                ::autograd::__private::row(&__ad_d[..], 0usize, r.len()),
                ::autograd::__private::row_mut(&mut __ad_d_r[..], 0usize, r.len()),
            ) {
                let __ad_n_1: usize = ::core::cmp::min(
                    __ad_row_d.len(),
                    __ad_row_d_r.len(),
                );
                for __ad_k in 0..__ad_n_1 {
                    let __ad_s__1 = __ad_cell___ad_s_6;
                    let __ad_t7 = r[__ad_k];
                    let __ad_t8 = (__ad_row_d[__ad_k]) * __ad_t7;
                    let __ad_s__2 = __ad_s__1 + __ad_t8;
                    __ad_cell___ad_s_6 = __ad_s__2;
                    __ad_d_cell___ad_s_6 = __ad_seed_cell___ad_s_6;
                    let mut __ad_d_s__2: f64 = __ad_d_cell___ad_s_6;
                    __ad_d_cell___ad_s_6 = 0.0;
                    let __ad_p_s__2 = ::autograd::__private::rules::add(0.0, 0.0, 0.0);
                    let mut __ad_d_s__1: f64 = __ad_d_s__2 * __ad_p_s__2.0;
                    let mut __ad_d_t8: f64 = __ad_d_s__2 * __ad_p_s__2.1;
                    let mut __ad_d_t7: f64 = __ad_d_t8
                        * ::autograd::__private::rules::mul(
                                (__ad_row_d[__ad_k]),
                                0.0,
                                0.0,
                            )
                            .1;
                    __ad_row_d_r[__ad_k] += __ad_d_t7;
                    __ad_d_cell___ad_s_6 = __ad_d_s__1;
                }
            } else {
                for __ad_k in 0..r.len() {
                    let __ad_s__1 = __ad_cell___ad_s_6;
                    let __ad_t7 = r[__ad_k];
                    let __ad_t8 = (__ad_d[__ad_k]) * __ad_t7;
                    let __ad_s__2 = __ad_s__1 + __ad_t8;
                    __ad_cell___ad_s_6 = __ad_s__2;
                    __ad_d_cell___ad_s_6 = __ad_seed_cell___ad_s_6;
                    let mut __ad_d_s__2: f64 = __ad_d_cell___ad_s_6;
                    __ad_d_cell___ad_s_6 = 0.0;
                    let __ad_p_s__2 = ::autograd::__private::rules::add(0.0, 0.0, 0.0);
                    let mut __ad_d_s__1: f64 = __ad_d_s__2 * __ad_p_s__2.0;
                    let mut __ad_d_t8: f64 = __ad_d_s__2 * __ad_p_s__2.1;
                    let mut __ad_d_t7: f64 = __ad_d_t8
                        * ::autograd::__private::rules::mul((__ad_d[__ad_k]), 0.0, 0.0)
                            .1;
                    __ad_d_r[__ad_k] += __ad_d_t7;
                    __ad_d_cell___ad_s_6 = __ad_d_s__1;
                }
            }
        }
        let __ad_s__3 = __ad_cell___ad_s_6;
        let mut __ad_d_s__3: f64 = d_out;
        let mut __ad_d_cell___ad_s_6: f64 = 0.0;
        __ad_d_cell___ad_s_6 += __ad_d_s__3;
        let mut __ad_sum: f64 = 0.0;
        let mut __ad_sum_1: f64 = 0.0;
        {
            let mut __ad_taken = __ad_record.taken();
            for i in (0..t.len()).rev() {
                let __ad_t3: f64 = __ad_taken.pop();
                let __ad_t0 = p[0];
                let __ad_i: usize = i;
                let mut __ad_d_t5: f64 = __ad_d_r[__ad_i];
                __ad_d_r[__ad_i] = 0.0;
                let mut __ad_d_t4: f64 = __ad_d_t5
                    * ::autograd::__private::rules::sub(0.0, 0.0, 0.0).0;
                let __ad_p_t4 = ::autograd::__private::rules::mul(__ad_t0, __ad_t3, 0.0);
                let mut __ad_d_t0: f64 = __ad_d_t4 * __ad_p_t4.0;
                let mut __ad_d_t3: f64 = __ad_d_t4 * __ad_p_t4.1;
                let mut __ad_d_t2: f64 = __ad_d_t3
                    * ::autograd::__private::rules::exp(0.0, __ad_t3);
                let mut __ad_d_t1: f64 = __ad_d_t2
                    * ::autograd::__private::rules::mul(0.0, (t[i]), 0.0).0;
                __ad_sum_1 += __ad_d_t1;
                __ad_sum += __ad_d_t0;
            }
        }
        d_p[0] += __ad_sum;
        d_p[1] += __ad_sum_1;
        __ad_guard.give_back([__ad_record]);
        __ad_s__3
    }
    let mut __ad_kept = ::core::option::Option::None;
    __ad_weighted_adjoint(p, t, y, d_out, &mut __ad_kept, 1.0_f64, d_p);
    ::autograd::__private::kept(__ad_kept)
}
///The value of `residuals` and its Jacobian, generated by `#[differentiable]`: row-major `m × n`, one row per output, one column per active float (`p`, flattened in parameter order). Computed by columns in forward mode (one forward sweep per active float) when there are no more active floats than outputs, `n ≤ m` (a tall Jacobian: residuals of many data points in few parameters), else by rows in reverse mode (one adjoint sweep per output); the choice is made at run time. Allocates only the returned buffers and what `residuals` itself allocates.
#[allow(
    arithmetic_overflow,
    unconditional_panic,
    dead_code,
    unused_variables,
    unused_mut,
    unused_parens,
    unused_assignments,
    unreachable_code,
    non_snake_case,
    clippy::all,
    clippy::pedantic
)]
fn residuals_jacobian(
    p: &[f64],
    t: &[f64],
    y: &[f64],
) -> (Vec<f64>, ::std::vec::Vec<f64>) {
    #[allow(clippy::all, clippy::pedantic)]
    fn __ad_value_of(p: &[f64], t: &[f64], y: &[f64]) -> Vec<f64> {
        let mut r = vec![0.0; t.len()];
        for i in 0..t.len() {
            r[i] = p[0] * (p[1] * t[i]).exp() - y[i];
        }
        r
    }
    /// Reverse-mode adjoint of `__ad_weighted`, generated by `#[differentiable]`: returns the value of `__ad_weighted` and adds `d_out` times its partial derivative with respect to each of `p` into the matching `d_` argument.
    #[allow(
        arithmetic_overflow,
        unconditional_panic,
        dead_code,
        unused_variables,
        unused_mut,
        unused_parens,
        unused_assignments,
        unreachable_code,
        non_snake_case,
        clippy::all,
        clippy::pedantic
    )]
    fn __ad_weighted_adjoint(
        p: &[f64],
        t: &[f64],
        y: &[f64],
        __ad_d: &[f64],
        __ad_value_slot: &mut ::core::option::Option<Vec<f64>>,
        d_out: f64,
        d_p: &mut [f64],
    ) -> f64 {
        ::autograd::__private::check_adjoint_len(
            "__ad_weighted_adjoint",
            "d_p",
            d_p.len(),
            "p",
            p.len(),
        );
        ::std::thread_local! {
            #[allow(non_upper_case_globals)] static __ad_home :
            ::autograd::__private::RecordsHome < f64, 1 > = const {
            ::autograd::__private::RecordsHome::new() };
        }
        let __ad_guard = ::autograd::__private::RecordsHome::take(&__ad_home);
        let mut __ad_record = __ad_guard.record(0);
        let mut __ad_own_r: ::std::vec::Vec<f64> = ::std::vec![0.0; t.len()];
        let r = &mut __ad_own_r[..];
        {
            let mut __ad_slots = __ad_record
                .slots(::autograd::__private::room(&(0..t.len()), 1usize));
            if let (Some(__ad_row_r), Some(__ad_row_y)) = (
                ::autograd::__private::row_mut(&mut r[..], 0usize, t.len()),
                ::autograd::__private::row(&y[..], 0usize, t.len()),
            ) {
                let __ad_n: usize = ::core::cmp::min(__ad_row_r.len(), __ad_row_y.len());
                for i in 0..__ad_n {
                    let __ad_t0 = p[0];
                    let __ad_t1 = p[1];
                    let __ad_t2 = __ad_t1 * (t[i]);
                    let __ad_t3 = __ad_t2.exp();
                    let __ad_t3 = __ad_slots.push(__ad_t3);
                    let __ad_t4 = __ad_t0 * __ad_t3;
                    let __ad_t5 = __ad_t4 - (__ad_row_y[i]);
                    __ad_row_r[i] = __ad_t5;
                }
            } else {
                for i in 0..t.len() {
                    let __ad_t0 = p[0];
                    let __ad_t1 = p[1];
                    let __ad_t2 = __ad_t1 * (t[i]);
                    let __ad_t3 = __ad_t2.exp();
                    let __ad_t3 = __ad_slots.push(__ad_t3);
                    let __ad_t4 = __ad_t0 * __ad_t3;
                    let __ad_t5 = __ad_t4 - (y[i]);
                    r[i] = __ad_t5;
                }
            }
        }
        let __ad_s: f64 = 0.0_f64;
        if __ad_value_slot.is_none() {
            ::autograd::__private::check_output_len(
                "residuals_adjoint",
                stringify!(d_out),
                __ad_d.len(),
                r.len(),
            );
            *__ad_value_slot = ::core::option::Option::Some(
                ::autograd::__private::spare_copy(&r[..]),
            );
        }
        let mut __ad_cell___ad_s_6 = __ad_s;
        let __ad_seed_cell___ad_s_6: f64 = d_out;
        let mut __ad_own_d_r = ::autograd::__private::zeros_like(&r);
        let __ad_d_r = &mut __ad_own_d_r[..];
        {
            let mut __ad_d_cell___ad_s_6: f64;
            if let (Some(__ad_row_d), Some(__ad_row_d_r)) = (
                ::autograd::__private::row(&__ad_d[..], 0usize, r.len()),
                ::autograd::__private::row_mut(&mut __ad_d_r[..], 0usize, r.len()),
            ) {
                let __ad_n_1: usize = ::core::cmp::min(
                    __ad_row_d.len(),
                    __ad_row_d_r.len(),
                );
                for __ad_k in 0..__ad_n_1 {
                    let __ad_s__1 = __ad_cell___ad_s_6;
                    let __ad_t7 = r[__ad_k];
                    let __ad_t8 = (__ad_row_d[__ad_k]) * __ad_t7;
                    let __ad_s__2 = __ad_s__1 + __ad_t8;
                    __ad_cell___ad_s_6 = __ad_s__2;
                    __ad_d_cell___ad_s_6 = __ad_seed_cell___ad_s_6;
                    let mut __ad_d_s__2: f64 = __ad_d_cell___ad_s_6;
                    __ad_d_cell___ad_s_6 = 0.0;
                    let __ad_p_s__2 = ::autograd::__private::rules::add(0.0, 0.0, 0.0);
                    let mut __ad_d_s__1: f64 = __ad_d_s__2 * __ad_p_s__2.0;
                    let mut __ad_d_t8: f64 = __ad_d_s__2 * __ad_p_s__2.1;
                    let mut __ad_d_t7: f64 = __ad_d_t8
                        * ::autograd::__private::rules::mul(
                                (__ad_row_d[__ad_k]),
                                0.0,
                                0.0,
                            )
                            .1;
                    __ad_row_d_r[__ad_k] += __ad_d_t7;
                    __ad_d_cell___ad_s_6 = __ad_d_s__1;
                }
            } else {
                for __ad_k in 0..r.len() {
                    let __ad_s__1 = __ad_cell___ad_s_6;
                    let __ad_t7 = r[__ad_k];
                    let __ad_t8 = (__ad_d[__ad_k]) * __ad_t7;
                    let __ad_s__2 = __ad_s__1 + __ad_t8;
                    __ad_cell___ad_s_6 = __ad_s__2;
                    __ad_d_cell___ad_s_6 = __ad_seed_cell___ad_s_6;
                    let mut __ad_d_s__2: f64 = __ad_d_cell___ad_s_6;
                    __ad_d_cell___ad_s_6 = 0.0;
                    let __ad_p_s__2 = ::autograd::__private::rules::add(0.0, 0.0, 0.0);
                    let mut __ad_d_s__1: f64 = __ad_d_s__2 * __ad_p_s__2.0;
                    let mut __ad_d_t8: f64 = __ad_d_s__2 * __ad_p_s__2.1;
                    let mut __ad_d_t7: f64 = __ad_d_t8
                        * ::autograd::__private::rules::mul((__ad_d[__ad_k]), 0.0, 0.0)
                            .1;
                    __ad_d_r[__ad_k] += __ad_d_t7;
                    __ad_d_cell___ad_s_6 = __ad_d_s__1;
                }
            }
        }
        let __ad_s__3 = __ad_cell___ad_s_6;
        let mut __ad_d_s__3: f64 = d_out;
        let mut __ad_d_cell___ad_s_6: f64 = 0.0;
        __ad_d_cell___ad_s_6 += __ad_d_s__3;
        let mut __ad_sum: f64 = 0.0;
        let mut __ad_sum_1: f64 = 0.0;
        {
            let mut __ad_taken = __ad_record.taken();
            for i in (0..t.len()).rev() {
                let __ad_t3: f64 = __ad_taken.pop();
                let __ad_t0 = p[0];
                let __ad_i: usize = i;
                let mut __ad_d_t5: f64 = __ad_d_r[__ad_i];
                __ad_d_r[__ad_i] = 0.0;
                let mut __ad_d_t4: f64 = __ad_d_t5
                    * ::autograd::__private::rules::sub(0.0, 0.0, 0.0).0;
                let __ad_p_t4 = ::autograd::__private::rules::mul(__ad_t0, __ad_t3, 0.0);
                let mut __ad_d_t0: f64 = __ad_d_t4 * __ad_p_t4.0;
                let mut __ad_d_t3: f64 = __ad_d_t4 * __ad_p_t4.1;
                let mut __ad_d_t2: f64 = __ad_d_t3
                    * ::autograd::__private::rules::exp(0.0, __ad_t3);
                let mut __ad_d_t1: f64 = __ad_d_t2
                    * ::autograd::__private::rules::mul(0.0, (t[i]), 0.0).0;
                __ad_sum_1 += __ad_d_t1;
                __ad_sum += __ad_d_t0;
            }
        }
        d_p[0] += __ad_sum;
        d_p[1] += __ad_sum_1;
        __ad_guard.give_back([__ad_record]);
        __ad_s__3
    }
    #[allow(
        arithmetic_overflow,
        unconditional_panic,
        dead_code,
        unused_variables,
        unused_mut,
        unused_parens,
        unused_assignments,
        unreachable_code,
        non_snake_case,
        clippy::all,
        clippy::pedantic
    )]
    fn __ad_jvp(
        p: &[f64],
        t: &[f64],
        y: &[f64],
        __ad_d: &[f64],
        __ad_dir_p: &[f64],
        __ad_columns: &mut [f64],
        __ad_n_2: usize,
        __ad_j: usize,
        __ad_scratch: &mut [f64],
    ) {
        let _: f64 = {
            let mut __ad_own_r: ::std::vec::Vec<f64> = ::std::vec![0.0; t.len()];
            let r = &mut __ad_own_r[..];
            let mut __ad_dot_r = ::autograd::__private::zeros_like(&r);
            for i in 0..t.len() {
                let __ad_t0 = p[0];
                let __ad_dot_t0 = __ad_dir_p[0];
                let __ad_t1 = p[1];
                let __ad_dot_t1 = __ad_dir_p[1];
                let __ad_t2 = __ad_t1 * (t[i]);
                let __ad_dot_t2 = ::autograd::__private::rules::mul(0.0, (t[i]), 0.0).0
                    * __ad_dot_t1;
                let __ad_t3 = __ad_t2.exp();
                let __ad_dot_t3 = ::autograd::__private::rules::exp(0.0, __ad_t3)
                    * __ad_dot_t2;
                let __ad_t4 = __ad_t0 * __ad_t3;
                let __ad_p_t4 = ::autograd::__private::rules::mul(__ad_t0, __ad_t3, 0.0);
                let __ad_dot_t4 = __ad_p_t4.0 * __ad_dot_t0 + __ad_p_t4.1 * __ad_dot_t3;
                let __ad_t5 = __ad_t4 - (y[i]);
                let __ad_dot_t5 = ::autograd::__private::rules::sub(0.0, 0.0, 0.0).0
                    * __ad_dot_t4;
                {
                    let __ad_i_1: usize = i;
                    r[__ad_i_1] = __ad_t5;
                    __ad_dot_r[__ad_i_1] = __ad_dot_t5;
                }
            }
            ::autograd::__private::jacobian_column(
                __ad_columns,
                __ad_n_2,
                __ad_j,
                &__ad_dot_r[..],
            );
            return;
            let __ad_s: f64 = 0.0_f64;
            let mut __ad_cell___ad_s_6 = __ad_s;
            let mut __ad_dot_cell___ad_s_6: f64 = 0.0_f64;
            for __ad_k in 0..r.len() {
                let __ad_s__1 = __ad_cell___ad_s_6;
                let __ad_dot_s__1 = __ad_dot_cell___ad_s_6;
                let __ad_t7 = r[__ad_k];
                let __ad_dot_t7 = __ad_dot_r[__ad_k];
                let __ad_t8 = (__ad_d[__ad_k]) * __ad_t7;
                let __ad_dot_t8 = ::autograd::__private::rules::mul(
                        (__ad_d[__ad_k]),
                        0.0,
                        0.0,
                    )
                    .1 * __ad_dot_t7;
                let __ad_s__2 = __ad_s__1 + __ad_t8;
                let __ad_p_s__2 = ::autograd::__private::rules::add(0.0, 0.0, 0.0);
                let __ad_dot_s__2 = __ad_p_s__2.0 * __ad_dot_s__1
                    + __ad_p_s__2.1 * __ad_dot_t8;
                __ad_cell___ad_s_6 = __ad_s__2;
                __ad_dot_cell___ad_s_6 = __ad_dot_s__2;
            }
            let __ad_s__3 = __ad_cell___ad_s_6;
            let __ad_dot_s__3 = __ad_dot_cell___ad_s_6;
            __ad_s__3
        };
    }
    let __ad_value = __ad_value_of(p, t, y);
    let __ad_m = __ad_value.len();
    let __ad_n: usize = 0 + p.len();
    let __ad_jacobian = if __ad_n <= __ad_m {
        let mut __ad_jacobian = ::autograd::__private::zeros(
            __ad_m * __ad_n + 2 * __ad_n,
        );
        {
            let (__ad_columns, __ad_dir) = __ad_jacobian.split_at_mut(__ad_m * __ad_n);
            let (__ad_dir, __ad_scratch) = __ad_dir.split_at_mut(__ad_n);
            for __ad_i in 0..__ad_n {
                __ad_dir[__ad_i] = 1.0;
                {
                    let __ad_rest: &[f64] = &*__ad_dir;
                    let (__ad_dir_p, __ad_rest) = __ad_rest.split_at(p.len());
                    __ad_jvp(
                        p,
                        t,
                        y,
                        &__ad_value[..],
                        __ad_dir_p,
                        &mut *__ad_columns,
                        __ad_n,
                        __ad_i,
                        &mut *__ad_scratch,
                    );
                }
                __ad_dir[__ad_i] = 0.0;
            }
        }
        __ad_jacobian.truncate(__ad_m * __ad_n);
        __ad_jacobian
    } else {
        let mut __ad_jacobian = ::autograd::__private::zeros(__ad_m * __ad_n + __ad_m);
        {
            let mut __ad_kept = ::core::option::Option::None;
            let (__ad_rows, __ad_unit) = __ad_jacobian.split_at_mut(__ad_m * __ad_n);
            for __ad_i in 0..__ad_m {
                __ad_unit[__ad_i] = 1.0;
                let __ad_row = &mut __ad_rows[__ad_i * __ad_n..(__ad_i + 1) * __ad_n];
                let (__ad_part_p, __ad_row) = __ad_row.split_at_mut(p.len());
                __ad_weighted_adjoint(
                    p,
                    t,
                    y,
                    &*__ad_unit,
                    &mut __ad_kept,
                    1.0_f64,
                    __ad_part_p,
                );
                __ad_unit[__ad_i] = 0.0;
            }
        }
        __ad_jacobian.truncate(__ad_m * __ad_n);
        __ad_jacobian
    };
    (__ad_value, __ad_jacobian)
}
