#[allow(dead_code)]
fn polar(r: f64, theta: [f64; 1]) -> [f64; 3] {
    let (s, c) = theta[0].sin_cos();
    [r * c, r * s, r * r]
}
#[doc(hidden)]
#[allow(non_upper_case_globals, dead_code)]
const __polar_active: &[bool] = &[true, true];
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
fn polar_hvp_adjoint<
    '__ad_a,
    __AdP0: ::autograd::__private::dual::ScalarArg<'__ad_a>,
    __AdP1: ::autograd::__private::dual::ArrayArg<'__ad_a, [f64; 1]>,
>(
    r: __AdP0,
    theta: __AdP1,
    d_out: &[::autograd::__private::Dual],
) -> [::autograd::__private::Dual; 3] {
    #[allow(clippy::all, clippy::pedantic)]
    fn __ad_value_of(r: f64, theta: [f64; 1]) -> [f64; 3] {
        let (s, c) = theta[0].sin_cos();
        [r * c, r * s, r * r]
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
        __AdP0: ::autograd::__private::dual::ScalarArg<'__ad_a>,
        __AdP1: ::autograd::__private::dual::ArrayArg<'__ad_a, [f64; 1]>,
        __AdP2: ::autograd::__private::dual::ArrayArg<'__ad_a, &'__ad_a [f64]>,
    >(
        r: __AdP0,
        theta: __AdP1,
        __ad_d: __AdP2,
        d_out: ::autograd::__private::Dual,
    ) -> ::autograd::__private::Dual {
        let (r, __ad_slot_r) = ::autograd::__private::dual::ScalarArg::split(r);
        let mut __ad_scratch_r = ::autograd::__private::Dual::constant(0.0);
        let d_r: &mut ::autograd::__private::Dual = match __ad_slot_r {
            ::core::option::Option::Some(slot) => slot,
            ::core::option::Option::None => &mut __ad_scratch_r,
        };
        let (theta, v_theta, d_theta, hv_theta) = ::autograd::__private::dual::ArrayArg::split(
            theta,
        );
        let (__ad_d, v___ad_d, d___ad_d, hv___ad_d) = ::autograd::__private::dual::ArrayArg::split(
            __ad_d,
        );
        let __ad_t0: ::autograd::__private::Dual = {
            let __ad_k_1: usize = 0;
            ::autograd::__private::Dual::new(
                theta[__ad_k_1],
                ::autograd::__private::dual::tangent(&v_theta[..], __ad_k_1),
            )
        };
        let __ad_t1: ::autograd::__private::Dual = ::autograd::__private::Dual::sin(
            ::autograd::__private::Dual::from(__ad_t0),
        );
        let __ad_t2: ::autograd::__private::Dual = ::autograd::__private::Dual::cos(
            ::autograd::__private::Dual::from(__ad_t0),
        );
        let s: ::autograd::__private::Dual = __ad_t1;
        let c: ::autograd::__private::Dual = __ad_t2;
        let __ad_t3: ::autograd::__private::Dual = r * c;
        let __ad_t4: ::autograd::__private::Dual = r * s;
        let __ad_t5: ::autograd::__private::Dual = r * r;
        let mut __ad_out: [::autograd::__private::Dual; 3] = [
            ::autograd::__private::Dual::from(__ad_t3),
            ::autograd::__private::Dual::from(__ad_t4),
            ::autograd::__private::Dual::from(__ad_t5),
        ];
        let __ad_s: f64 = 0.0_f64;
        let mut __ad_cell___ad_s_6: ::autograd::__private::Dual = ::autograd::__private::Dual::from(
            __ad_s,
        );
        let __ad_seed_cell___ad_s_6: ::autograd::__private::Dual = ::autograd::__private::Dual::from(
            d_out,
        );
        let mut __ad_d_out = ::autograd::__private::zeros_like(&__ad_out);
        {
            let mut __ad_d_cell___ad_s_6: ::autograd::__private::Dual;
            if let (Some(__ad_row_d_out),) = (
                ::autograd::__private::row_mut(
                    &mut __ad_d_out[..],
                    0usize,
                    __ad_out.len(),
                ),
            ) {
                let __ad_n: usize = __ad_row_d_out.len();
                for __ad_k in 0..__ad_n {
                    let __ad_s__1: ::autograd::__private::Dual = __ad_cell___ad_s_6;
                    let __ad_t7: ::autograd::__private::Dual = {
                        let __ad_k_2: usize = __ad_k;
                        ::autograd::__private::Dual::new(
                            __ad_d[__ad_k_2],
                            ::autograd::__private::dual::tangent(&v___ad_d[..], __ad_k_2),
                        )
                    };
                    let __ad_t8: ::autograd::__private::Dual = __ad_out[__ad_k];
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
                    __ad_row_d_out[__ad_k] += __ad_d_t8;
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
                for __ad_k in 0..__ad_out.len() {
                    let __ad_s__1: ::autograd::__private::Dual = __ad_cell___ad_s_6;
                    let __ad_t7: ::autograd::__private::Dual = {
                        let __ad_k_2: usize = __ad_k;
                        ::autograd::__private::Dual::new(
                            __ad_d[__ad_k_2],
                            ::autograd::__private::dual::tangent(&v___ad_d[..], __ad_k_2),
                        )
                    };
                    let __ad_t8: ::autograd::__private::Dual = __ad_out[__ad_k];
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
                    __ad_d_out[__ad_k] += __ad_d_t8;
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
        let mut __ad_d_t3: ::autograd::__private::Dual = __ad_d_out[0];
        let mut __ad_d_t4: ::autograd::__private::Dual = __ad_d_out[1];
        let mut __ad_d_t5: ::autograd::__private::Dual = __ad_d_out[2];
        let __ad_p_t5 = ::autograd::__private::dual::rules::mul(r, r, __ad_t5);
        let mut __ad_d_r: ::autograd::__private::Dual = __ad_d_t5 * __ad_p_t5.0;
        __ad_d_r += __ad_d_t5 * __ad_p_t5.1;
        let __ad_p_t4 = ::autograd::__private::dual::rules::mul(r, s, __ad_t4);
        __ad_d_r += __ad_d_t4 * __ad_p_t4.0;
        let mut __ad_d_s: ::autograd::__private::Dual = __ad_d_t4 * __ad_p_t4.1;
        let __ad_p_t3 = ::autograd::__private::dual::rules::mul(r, c, __ad_t3);
        __ad_d_r += __ad_d_t3 * __ad_p_t3.0;
        let mut __ad_d_c: ::autograd::__private::Dual = __ad_d_t3 * __ad_p_t3.1;
        let mut __ad_d_t2: ::autograd::__private::Dual = __ad_d_c;
        let mut __ad_d_t1: ::autograd::__private::Dual = __ad_d_s;
        let mut __ad_d_t0: ::autograd::__private::Dual = __ad_d_t2
            * ::autograd::__private::dual::rules::cos(__ad_t0, __ad_t2);
        __ad_d_t0
            += __ad_d_t1 * ::autograd::__private::dual::rules::sin(__ad_t0, __ad_t1);
        let __ad_i_1: usize = 0;
        ::autograd::__private::dual::accumulate(
            &mut d_theta[..],
            &mut hv_theta[..],
            __ad_i_1,
            __ad_d_t0,
        );
        *d_r += __ad_d_r;
        __ad_s__3
    }
    let (r, __ad_slot_r) = ::autograd::__private::dual::ScalarArg::split(r);
    let mut __ad_scratch_r = ::autograd::__private::Dual::constant(0.0);
    let __ad_slot_r: &mut ::autograd::__private::Dual = match __ad_slot_r {
        ::core::option::Option::Some(slot) => slot,
        ::core::option::Option::None => &mut __ad_scratch_r,
    };
    let (theta, __ad_v_theta, __ad_g_theta, __ad_h_theta) = ::autograd::__private::dual::ArrayArg::split(
        theta,
    );
    let __ad_value_1 = __ad_value_of(r.v, theta);
    let mut __ad_dv = ::autograd::__private::zeros_like(&__ad_value_1);
    let mut __ad_dt = ::autograd::__private::zeros_like(&__ad_value_1);
    if !d_out.is_empty() {
        ::autograd::__private::check_output_len(
            "polar_hvp_adjoint",
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
        (r, __ad_slot_r),
        (theta, __ad_v_theta, __ad_g_theta, __ad_h_theta),
        (&__ad_dv[..], &__ad_dt[..], &mut __ad_gd[..], &mut __ad_hd[..]),
        ::autograd::__private::Dual::constant(1.0),
    );
    ::autograd::__private::dual::zip_array(&__ad_value_1, &__ad_hd[..])
}
///Vector-Jacobian product of `polar`, generated by `#[differentiable]`: returns the value of `polar` and adds `d_outᵀ · ∂polar/∂p` into the `d_` argument of each of `r`, `theta` (`d_out` has one entry per output; another length panics). One reverse sweep.
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
fn polar_adjoint(
    r: f64,
    theta: [f64; 1],
    d_out: &[f64],
    d_r: &mut f64,
    d_theta: &mut [f64; 1],
) -> [f64; 3] {
    /// Reverse-mode adjoint of `__ad_weighted`, generated by `#[differentiable]`: returns the value of `__ad_weighted` and adds `d_out` times its partial derivative with respect to each of `r`, `theta` into the matching `d_` argument.
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
        r: f64,
        theta: [f64; 1],
        __ad_d: &[f64],
        __ad_value_slot: &mut ::core::option::Option<[f64; 3]>,
        d_out: f64,
        d_r: &mut f64,
        d_theta: &mut [f64; 1],
    ) -> f64 {
        let __ad_t0 = theta[0];
        let __ad_t1 = f64::sin(__ad_t0);
        let __ad_t2 = f64::cos(__ad_t0);
        let s = __ad_t1;
        let c = __ad_t2;
        let __ad_t3 = r * c;
        let __ad_t4 = r * s;
        let __ad_t5 = r * r;
        let mut __ad_out: [f64; 3] = [__ad_t3, __ad_t4, __ad_t5];
        if __ad_value_slot.is_none() {
            ::autograd::__private::check_output_len(
                "polar_adjoint",
                stringify!(d_out),
                __ad_d.len(),
                __ad_out.len(),
            );
            *__ad_value_slot = ::core::option::Option::Some(
                ::core::clone::Clone::clone(&__ad_out),
            );
        }
        let __ad_s: f64 = 0.0_f64;
        let mut __ad_cell___ad_s_6 = __ad_s;
        let __ad_seed_cell___ad_s_6: f64 = d_out;
        let mut __ad_d_out = ::autograd::__private::zeros_like(&__ad_out);
        {
            let mut __ad_d_cell___ad_s_6: f64;
            if let (Some(__ad_row_d), Some(__ad_row_d_out)) = (
                ::autograd::__private::row(&__ad_d[..], 0usize, __ad_out.len()),
                ::autograd::__private::row_mut(
                    &mut __ad_d_out[..],
                    0usize,
                    __ad_out.len(),
                ),
            ) {
                let __ad_n: usize = ::core::cmp::min(
                    __ad_row_d.len(),
                    __ad_row_d_out.len(),
                );
                for __ad_k in 0..__ad_n {
                    let __ad_s__1 = __ad_cell___ad_s_6;
                    let __ad_t7 = __ad_out[__ad_k];
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
                    __ad_row_d_out[__ad_k] += __ad_d_t7;
                    __ad_d_cell___ad_s_6 = __ad_d_s__1;
                }
            } else {
                for __ad_k in 0..__ad_out.len() {
                    let __ad_s__1 = __ad_cell___ad_s_6;
                    let __ad_t7 = __ad_out[__ad_k];
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
                    __ad_d_out[__ad_k] += __ad_d_t7;
                    __ad_d_cell___ad_s_6 = __ad_d_s__1;
                }
            }
        }
        let __ad_s__3 = __ad_cell___ad_s_6;
        let mut __ad_d_s__3: f64 = d_out;
        let mut __ad_d_cell___ad_s_6: f64 = 0.0;
        __ad_d_cell___ad_s_6 += __ad_d_s__3;
        let mut __ad_d_t3: f64 = __ad_d_out[0];
        let mut __ad_d_t4: f64 = __ad_d_out[1];
        let mut __ad_d_t5: f64 = __ad_d_out[2];
        let __ad_p_t5 = ::autograd::__private::rules::mul(r, r, 0.0);
        let mut __ad_d_r: f64 = __ad_d_t5 * __ad_p_t5.0;
        __ad_d_r += __ad_d_t5 * __ad_p_t5.1;
        let __ad_p_t4 = ::autograd::__private::rules::mul(r, s, 0.0);
        __ad_d_r += __ad_d_t4 * __ad_p_t4.0;
        let mut __ad_d_s: f64 = __ad_d_t4 * __ad_p_t4.1;
        let __ad_p_t3 = ::autograd::__private::rules::mul(r, c, 0.0);
        __ad_d_r += __ad_d_t3 * __ad_p_t3.0;
        let mut __ad_d_c: f64 = __ad_d_t3 * __ad_p_t3.1;
        let mut __ad_d_t2: f64 = __ad_d_c;
        let mut __ad_d_t1: f64 = __ad_d_s;
        let mut __ad_d_t0: f64 = __ad_d_t2
            * ::autograd::__private::rules::cos(__ad_t0, 0.0);
        __ad_d_t0 += __ad_d_t1 * ::autograd::__private::rules::sin(__ad_t0, 0.0);
        d_theta[0] += __ad_d_t0;
        *d_r += __ad_d_r;
        __ad_s__3
    }
    let mut __ad_kept = ::core::option::Option::None;
    __ad_weighted_adjoint(r, theta, d_out, &mut __ad_kept, 1.0_f64, d_r, d_theta);
    ::autograd::__private::kept(__ad_kept)
}
///The value of `polar` and its Jacobian, generated by `#[differentiable]`: row-major `m × n`, one row per output, one column per active float (`r`, `theta`, flattened in parameter order). Computed by columns in forward mode (one forward sweep per active float: there are no more of them than outputs). Allocates only the returned buffers and what `polar` itself allocates.
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
fn polar_jacobian(r: f64, theta: [f64; 1]) -> ([f64; 3], ::std::vec::Vec<f64>) {
    #[allow(clippy::all, clippy::pedantic)]
    fn __ad_value_of(r: f64, theta: [f64; 1]) -> [f64; 3] {
        let (s, c) = theta[0].sin_cos();
        [r * c, r * s, r * r]
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
        r: f64,
        theta: [f64; 1],
        __ad_d: &[f64],
        __ad_dir_r: f64,
        __ad_dir_theta: [f64; 1],
        __ad_columns: &mut [f64],
        __ad_n_1: usize,
        __ad_j: usize,
        __ad_scratch: &mut [f64],
    ) {
        let _: f64 = {
            let __ad_t0 = theta[0];
            let __ad_dot_t0 = __ad_dir_theta[0];
            let __ad_t1 = f64::sin(__ad_t0);
            let __ad_dot_t1 = ::autograd::__private::rules::sin(__ad_t0, 0.0)
                * __ad_dot_t0;
            let __ad_t2 = f64::cos(__ad_t0);
            let __ad_dot_t2 = ::autograd::__private::rules::cos(__ad_t0, 0.0)
                * __ad_dot_t0;
            let s = __ad_t1;
            let c = __ad_t2;
            let __ad_t3 = r * c;
            let __ad_p_t3 = ::autograd::__private::rules::mul(r, c, 0.0);
            let __ad_dot_t3 = __ad_p_t3.0 * __ad_dir_r + __ad_p_t3.1 * __ad_dot_t2;
            let __ad_t4 = r * s;
            let __ad_p_t4 = ::autograd::__private::rules::mul(r, s, 0.0);
            let __ad_dot_t4 = __ad_p_t4.0 * __ad_dir_r + __ad_p_t4.1 * __ad_dot_t1;
            let __ad_t5 = r * r;
            let __ad_p_t5 = ::autograd::__private::rules::mul(r, r, 0.0);
            let __ad_dot_t5 = __ad_p_t5.0 * __ad_dir_r + __ad_p_t5.1 * __ad_dir_r;
            ::autograd::__private::jacobian_column(
                __ad_columns,
                __ad_n_1,
                __ad_j,
                &[__ad_dot_t3, __ad_dot_t4, __ad_dot_t5][..],
            );
            return;
            let mut __ad_out: [f64; 3] = [__ad_t3, __ad_t4, __ad_t5];
            let mut __ad_dot_out = [__ad_dot_t3, __ad_dot_t4, __ad_dot_t5];
            let __ad_s: f64 = 0.0_f64;
            let mut __ad_cell___ad_s_6 = __ad_s;
            let mut __ad_dot_cell___ad_s_6: f64 = 0.0_f64;
            for __ad_k in 0..__ad_out.len() {
                let __ad_s__1 = __ad_cell___ad_s_6;
                let __ad_dot_s__1 = __ad_dot_cell___ad_s_6;
                let __ad_t7 = __ad_out[__ad_k];
                let __ad_dot_t7 = __ad_dot_out[__ad_k];
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
    let __ad_value = __ad_value_of(r, theta);
    let __ad_m = __ad_value.len();
    let __ad_n: usize = 0 + 1usize + (1);
    let mut __ad_jacobian = ::autograd::__private::zeros(__ad_m * __ad_n + 2 * __ad_n);
    {
        let (__ad_columns, __ad_dir) = __ad_jacobian.split_at_mut(__ad_m * __ad_n);
        let (__ad_dir, __ad_scratch) = __ad_dir.split_at_mut(__ad_n);
        for __ad_i in 0..__ad_n {
            __ad_dir[__ad_i] = 1.0;
            {
                let __ad_rest: &[f64] = &*__ad_dir;
                let __ad_dir_r: f64 = __ad_rest[0];
                let __ad_rest = &__ad_rest[1..];
                let (__ad_dir_theta, __ad_rest) = __ad_rest.split_at(1);
                let __ad_dir_theta: [f64; 1] = *::autograd::__private::dual::as_array(
                    __ad_dir_theta,
                );
                __ad_jvp(
                    r,
                    theta,
                    &__ad_value[..],
                    __ad_dir_r,
                    __ad_dir_theta,
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
    (__ad_value, __ad_jacobian)
}
